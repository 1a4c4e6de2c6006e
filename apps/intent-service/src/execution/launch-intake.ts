import { type LaunchedToken } from './execution.types.js';
import { type ProbeResult } from './token-prober.js';
import { type StateUpdate } from '@tradeinfra/contracts';

export type { ClaimedIntent, LaunchedToken } from './execution.types.js';
export { claimableProbeIntent, probeBehindLaunch, type LeftPool, type ProbeResult } from './token-prober.js';

/** A pending launch as it is recognised: what its early probe needs. */
export interface RecognisedLaunch {
  token: string;
  pair: string;
  txHash: string;
  /** The head the launch transaction was simulated on. */
  headBlock: bigint;
  stateAfter: StateUpdate;
  tokenReserve: bigint;
  nativeReserve: bigint;
}

/**
 * How launch watching hands launches to execution: the one module of execution/ that launch/
 * imports (nothing in execution/ imports launch/). The Executor implements it; ExecutionModule
 * provides it under this class as its token.
 */
export abstract class LaunchIntake {
  /** A new block or stored launch on the chain: execute now rather than at the next tick. */
  abstract wake(chainId: number): void;
  /** A pending launch was recognised and is being stored (`stored`: the tokens it recorded): its round starts now. */
  abstract launchSeen(chainId: number, launches: LaunchedToken[], stored: Promise<string[]>): void;
  /** The token probe of a pending launch just recognised (`behind`: the one made in the launch's own simulation). */
  abstract probeEarly(chainId: number, launch: RecognisedLaunch, behind?: Promise<ProbeResult | null>): void;
  /**
   * The token probe of a launch just found in a mined block, at `head`: made while the launch is
   * stored and its intents claimed, and taken by its round at the same head.
   */
  abstract probeMined(chainId: number, launch: Pick<LaunchedToken, 'token' | 'pair'>, head: bigint): void;
  /** How to forget a chain's pending launches that are gone (called when buys sent behind one missed it). */
  abstract whenLaunchesLost(forget: (chainId: number) => Promise<void>): void;
}
