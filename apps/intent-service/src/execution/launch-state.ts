import type { StateUpdate } from '@tradeinfra/contracts';
import { Transaction } from 'ethers';

/** What a signed transaction pays the block's builder per gas above `baseFee` (never below 0). */
export function effectiveTip(raw: string, baseFee: bigint): bigint {
  const tx = Transaction.from(raw);
  const cap = (tx.maxFeePerGas ?? tx.gasPrice ?? 0n) - baseFee;
  const tip = tx.maxPriorityFeePerGas ?? cap;
  const paid = tip < cap ? tip : cap;
  return paid < 0n ? 0n : paid;
}

/**
 * `state` (simulation overrides: the state a pending launch leaves, or nothing) with `wallet`
 * holding `balance` wei; the wallet's other fields as the state has them.
 */
export function withBalance(state: StateUpdate, wallet: string, balance: bigint): StateUpdate {
  const mine = (address: string) => address.toLowerCase() === wallet.toLowerCase();
  const entries = Object.entries(state.accounts ?? {});
  const own = entries.find(([address]) => mine(address))?.[1];
  const others = Object.fromEntries(entries.filter(([address]) => !mine(address)));
  return { ...state, accounts: { ...others, [wallet.toLowerCase()]: { ...own, balance: balance.toString() } } };
}
