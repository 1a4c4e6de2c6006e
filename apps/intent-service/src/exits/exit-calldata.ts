import { id as eventId } from 'ethers';
import { APPROVE } from '../execution/buy.js';

/** Gas limits of an exit's transactions (a taxed token's transfer costs more than a plain one). */
export const APPROVE_GAS = 100_000n;
export const SELL_GAS = 600_000n;
const ALLOWANCE = '0xdd62ed3e';
/** swapExactTokensForETHSupportingFeeOnTransferTokens(uint256,uint256,address[],address,uint256) */
const SWAP_TOKENS_FOR_ETH = '0x791ac947';
export const DEPOSIT = eventId('Deposit(address,uint256)');
export const WITHDRAWAL = eventId('Withdrawal(address,uint256)');
export const TRANSFER = eventId('Transfer(address,address,uint256)');

/** A receipt as the exit steps read it. */
export interface Receipt {
  status: string;
  blockNumber: string;
  logs: { address: string; topics: string[]; data: string }[];
}

/** ABI words by hand: a round encodes a few hundred of these (ethers' coder is ~10× slower, as buy.ts notes). */
const uintWord = (n: bigint) => n.toString(16).padStart(64, '0');
const addressWord = (a: string) => a.slice(2).toLowerCase().padStart(64, '0');

/** `allowance(owner, spender)`. */
export function allowanceCalldata(owner: string, spender: string): string {
  return ALLOWANCE + addressWord(owner) + addressWord(spender);
}

/** `approve(spender, amount)`. */
export function approveFor(spender: string, amount: bigint): string {
  return APPROVE + addressWord(spender) + uintWord(amount);
}

/** The router's sale of `amountIn` tokens for native sent to `to`, giving at least `amountOutMin`. */
export function sellCalldata(amountIn: bigint, amountOutMin: bigint, token: string, wrappedNative: string, to: string, deadline: bigint): string {
  // (uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline); path at offset 0xa0
  const head = uintWord(amountIn) + uintWord(amountOutMin) + uintWord(0xa0n) + addressWord(to) + uintWord(deadline);
  return SWAP_TOKENS_FOR_ETH + head + uintWord(2n) + addressWord(token) + addressWord(wrappedNative);
}
