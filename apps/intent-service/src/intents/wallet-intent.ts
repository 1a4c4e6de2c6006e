import type { BuyIntent, MerkleBuyIntent } from '@tradeinfra/executor';
import { ZeroAddress } from 'ethers';

/** A wallet intent's terms as stored and sent (decimal strings; null: not set). */
export interface WalletIntentTerms {
  wallet: string;
  tokenAddress: string;
  buyAmount: string;
  bribe: string;
  expiry: number | bigint;
  minIn: string | null;
  minOut: string | null;
  feeBps: number | null;
  feeRecipient: string | null;
  firstOrFail: boolean | null;
  /** Null: Merkle's 5-field BuyIntent (no nonce, no fee, minOut or firstOrFail). */
  nonce: string | null;
}

/**
 * The executor's `BuyIntent` the wallet signed for these terms: what is not set is 0, the zero
 * address or false (see docs/api/wallet-intents.md).
 */
export function toBuyIntent(t: WalletIntentTerms & { nonce: string }): BuyIntent {
  return {
    wallet: t.wallet,
    token: t.tokenAddress,
    amount: BigInt(t.buyAmount),
    bribe: BigInt(t.bribe),
    expiry: BigInt(t.expiry),
    minIn: BigInt(t.minIn ?? 0),
    minOut: BigInt(t.minOut ?? 0),
    feeBps: t.feeBps ?? 0,
    feeRecipient: t.feeRecipient ?? ZeroAddress,
    firstOrFail: t.firstOrFail ?? false,
    nonce: BigInt(t.nonce),
  };
}

/** Merkle's 5-field `BuyIntent` the wallet signed for these terms (a wallet intent without a nonce). */
export function toMerkleBuyIntent(t: Pick<WalletIntentTerms, 'tokenAddress' | 'buyAmount' | 'bribe' | 'expiry' | 'minIn'>): MerkleBuyIntent {
  return { token: t.tokenAddress, amount: BigInt(t.buyAmount), bribe: BigInt(t.bribe), expiry: BigInt(t.expiry), minIn: BigInt(t.minIn ?? 0) };
}
