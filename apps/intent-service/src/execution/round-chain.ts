import { type StableLayout } from '../chain/uniswap-v2.js';
import { type Block } from './buy-judgement.js';
import { type ExecutedChain } from './chain-clients.js';
import { type LaunchedToken } from './execution.types.js';
import { SenderHeads } from './round-reads.js';

/** One executed chain: its clients, and what the executor keeps of it between rounds. */
export interface RoundChain extends ExecutedChain {
  /** The head at which waiting buys were last sent again (once per new block). */
  resentAt: bigint;
  /** The stable pair's layout, read once: which side is native, the stable's decimals. */
  stable?: Promise<StableLayout | null>;
  /** The senders' state at the newest head (read once per head). */
  senders: SenderHeads;
  /** The head whose waiting senders were last read ahead of a round, and when (ms). */
  prefetched: { head: bigint; at: number };
  /** The head and the node's pending view, read as a pending launch was recognised, for that launch's round. */
  ahead: Ahead | null;
}

/** What a pending launch's round can start on before it finds the launch stored (docs/design/pending-launches.md). */
export interface Ahead {
  at: number;
  /** The launched tokens, as recognised: executed from memory once their store says they are this launch's. */
  launches: LaunchedToken[];
  /** The tokens (lowercase) the store recorded for this launch. */
  stored: Promise<string[]>;
  head: Promise<Block | null>;
  live: Promise<unknown[] | null>;
}

export function roundChain(clients: ExecutedChain): RoundChain {
  return { ...clients, resentAt: -1n, senders: new SenderHeads(), prefetched: { head: -1n, at: 0 }, ahead: null };
}

/** The node's newest block. */
export const readHead = (chain: Pick<ExecutedChain, 'rpc'>) => chain.rpc.call<Block>('eth_getBlockByNumber', ['latest', false]);
