import { DECIMALS, type ExitTransaction, type ExitTrigger } from '@tradeinfra/contracts';
import { type BundleRelays } from '@tradeinfra/service-kit';
import { getPairCall, pairFromResult, type Reserves } from '../chain/uniswap-v2.js';
import { type Block } from '../execution/buy-judgement.js';
import { type ExecutedChain } from '../execution/chain-clients.js';
import { type PendingTransactions } from '../launch/pending/pending-transactions.js';
import { allowanceCalldata } from './exit-calldata.js';
import { type WatchedExit } from './exits.repository.js';

/** A watched token's pair with the wrapped native token, and its decimals. */
export interface TokenInfo {
  pair: string;
  decimals: number;
}

/** An executed chain as the exit watcher keeps it between blocks. */
export interface ExitChain extends ExecutedChain {
  lastHead: bigint;
  /** Per token (lowercase): its pair and decimals, read once. */
  tokens: Map<string, Promise<TokenInfo | null>>;
  /** Per token with `onRug` exits, what the last block's evaluation left for the mempool watch. */
  rugWatch: Map<string, RugWatch>;
  /** Sells signed ahead by the development signer, by exit id: reused while their terms hold. */
  signedAhead: Map<string, SignedAhead>;
  /** The chain's pending transactions (null where its mempool is not followed). */
  pending: PendingTransactions | null;
  /** The chain's relays, for bundles (null without relays). */
  relays: BundleRelays | null;
}

/** A sell (and its approve) signed ahead, with the terms it was signed on. */
export interface SignedAhead {
  terms: string;
  minOut: bigint;
  maxFeePerGas: bigint;
  approve: string | null;
  sell: { raw: string; hash: string };
}

/** A token's `onRug` exits as the last block priced them. */
export interface RugWatch {
  pair: string;
  exits: WatchedExit[];
  amounts: Map<string, bigint>;
  pool: Reserves;
  loss: bigint;
  decimals: number;
  /** The block it was priced at (the rug is judged on it). */
  head: Block;
  /** The exits' sells quoted, built and signed ahead at that block (null: not ready, build them when firing). */
  ready: Promise<SellJobs | null>;
}

/** What sending sells needs to know of their wallets: next nonce (lowercase wallet), allowance to the router (by exit id). */
export interface SenderReads {
  nonces: Map<string, bigint>;
  allowances: Map<string, bigint>;
}

/** One exit that fires, with what it sells and why. */
export interface Firing {
  exit: WatchedExit;
  amount: bigint;
  trigger: ExitTrigger;
  price: bigint;
}

/** A firing exit quoted on the pool the sells before it leave: the least its sell may give. */
export interface Quoted extends Firing {
  minOut: bigint;
  out: bigint;
}

/** The token's pair and decimals, read once per chain (forgotten when the read fails). */
export function tokenInfo(chain: ExitChain, token: string): Promise<TokenInfo | null> {
  let info = chain.tokens.get(token);
  if (!info) {
    info = (async () => {
      const [pairResult, decimals] = await chain.rpc.all<string>([
        getPairCall(chain.config.factory, token, chain.config.wrappedNative, 'latest'),
        { method: 'eth_call', params: [{ to: token, data: DECIMALS }, 'latest'] },
      ]);
      const pair = pairFromResult(pairResult);
      return pair ? { pair, decimals: Number(BigInt(decimals!)) } : null;
    })();
    info.catch(() => chain.tokens.delete(token));
    chain.tokens.set(token, info);
  }
  return info;
}

/** The exits' wallets' next nonces and their allowances of `token` to the router, in one batch. */
export async function readSenders(chain: ExitChain, token: string, exits: WatchedExit[]): Promise<SenderReads> {
  const tag = chain.submitter.kind === 'rpc' ? 'pending' : 'latest';
  const wallets = [...new Set(exits.map((e) => e.wallet.toLowerCase()))];
  const reads = await chain.rpc.all<string>([
    ...wallets.map((w) => ({ method: 'eth_getTransactionCount', params: [w, tag] })),
    ...exits.map((e) => ({ method: 'eth_call', params: [{ to: token, data: allowanceCalldata(e.wallet, chain.config.router) }, 'latest'] })),
  ]);
  return {
    nonces: new Map(wallets.map((w, i) => [w, BigInt(reads[i]!)])),
    allowances: new Map(exits.map((e, i) => [e.id, BigInt(reads[wallets.length + i]!)])),
  };
}

/** A quoted exit's transactions: its approve (when the router's allowance is short) and its sell, at the wallet's next nonces. */
export interface SellJob {
  f: Quoted;
  approve: ExitTransaction | null;
  sell: ExitTransaction;
  /** What a sell signed ahead must share with this one to stand for it (nonce, approve, amount, tip, expiry). */
  terms: string;
  /** The signed bytes, the signer's refusal, or null while not signed. */
  signed: SignedSell | { failed: { reason: string; detail: string } } | null;
}

/** A signed sell and the approve before it. */
export interface SignedSell {
  approve: string | null;
  sell: { raw: string; hash: string };
}

/** A round's sells built on one block: the jobs in bribe order, and those whose quote is under their `minOut`. */
export interface SellJobs {
  head: Block;
  jobs: SellJob[];
  short: { id: string; minOut: bigint; quoted: bigint }[];
}
