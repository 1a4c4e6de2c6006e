import { type IntentStatusData } from '@tradeinfra/contracts';
import { encodeExecute, encodeExecuteMerkle } from '@tradeinfra/executor';
import { getAddress } from 'ethers';
import { toBuyIntent, toMerkleBuyIntent } from '../intents/wallet-intent.js';
import { FailureReason } from './checks.js';
import { type ClaimedIntent } from './execution.repository.js';
import { buyTransaction, type BuyTerms, type Job, type SenderState } from './buy-terms.js';

/** A wallet intent's buy through the executor costs more than the probe's direct buy: signature check, nonce, WETH transfer and unwrap. */
const EXECUTOR_EXTRA_GAS = 100_000n;

/**
 * A wallet intent's buy: the relayer's call of the executor with the wallet's signed intent.
 * The wallet pays `buyAmount + bribe` in wrapped native (it must hold and allow that much); the
 * relayer pays the gas. Null (and the intent failed) when it cannot go. Pure but for `state`,
 * which it updates as the buy spends.
 */
export function walletIntentBuy(
  chainId: number,
  wallets: { executor: string; relayerAddress: string } | null,
  intent: ClaimedIntent,
  state: SenderState,
  fail: (intent: ClaimedIntent, reason: FailureReason, detail: string, data?: IntentStatusData) => void,
  t: BuyTerms,
): Job | null {
  if (!wallets) {
    fail(intent, FailureReason.NoSigner, `chain ${chainId} has no executor contract or relayer (EXECUTOR_${chainId}, RELAYER_KEY_${chainId})`);
    return null;
  }
  if (intent.firstOrFail && !t.inLaunchBlock) {
    // The executor buys a firstOrFail intent only in the block that gave the pool its first
    // liquidity; this launch was seen in a block already mined, so no later block can qualify.
    fail(intent, FailureReason.NotIncluded, 'firstOrFail: the executor buys only in the launch block, and the launch was seen in a mined block');
    return null;
  }
  if (state.nonceSpent.has(intent.id)) {
    const spent = intent.nonce === null ? 'this signed intent (Merkle’s BuyIntent)' : `nonce ${intent.nonce}`;
    fail(intent, FailureReason.NonceUsed, `${spent} of ${intent.wallet} is used or revoked on the executor`);
    return null;
  }
  const needs = BigInt(intent.buyAmount) + BigInt(intent.bribe);
  const held = state.wrapped.get(intent.wallet.toLowerCase())!;
  if (held.balance < needs) {
    fail(intent, FailureReason.InsufficientFunds, `the wallet holds ${held.balance} wei of wrapped native, the buy takes ${needs}`, {
      balance: String(held.balance),
      required: String(needs),
    });
    return null;
  }
  if (held.allowance < needs) {
    fail(intent, FailureReason.AllowanceTooLow, `the wallet allows the executor ${held.allowance} wei of wrapped native, the buy takes ${needs}`, {
      allowance: String(held.allowance),
      required: String(needs),
    });
    return null;
  }
  const from = wallets.relayerAddress;
  const gasLimit = (t.probeGas * 3n) / 2n + EXECUTOR_EXTRA_GAS;
  const gasCost = gasLimit * t.maxFeePerGas;
  const relayerLeft = state.balance.get(from)!;
  if (relayerLeft < gasCost) {
    fail(intent, FailureReason.InsufficientFunds, `the relayer ${from} holds ${relayerLeft} wei, the buy's gas needs up to ${gasCost}`, {
      balance: String(relayerLeft),
      required: String(gasCost),
    });
    return null;
  }
  state.balance.set(from, relayerLeft - gasCost);
  held.balance -= needs;
  held.allowance -= needs;
  const n = state.nonce.get(from)!;
  state.nonce.set(from, n + 1n);
  // Merkle's 5-field BuyIntent binds no minOut: the relayer passes the checks' own minimum (the
  // quote less maxSlippageBps, else 0), which the executor enforces on what the wallet receives.
  const merkle = intent.nonce === null;
  const terms = merkle ? null : toBuyIntent({ ...intent, tokenAddress: t.token, nonce: intent.nonce! });
  const amountOutMin = terms ? terms.minOut : t.quote.amountOutMin;
  const data = terms ? encodeExecute(terms, intent.signature!) : encodeExecuteMerkle(toMerkleBuyIntent(intent), intent.wallet, amountOutMin, intent.signature!);
  return {
    intent,
    tx: buyTransaction(t, {
      chainId,
      from,
      nonce: n,
      to: getAddress(wallets.executor),
      value: 0n,
      data,
      gasLimit,
      amountOutMin,
      feeRecipient: intent.feeRecipient,
      bribe: BigInt(intent.bribe),
      deadline: intent.expiry,
      onlyInBlock: null,
      onlyInLaunchBlockOf: null,
    }),
  };
}
