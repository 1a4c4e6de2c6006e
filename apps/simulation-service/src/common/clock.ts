/** Nest token of the wall clock (`Clock`): every production read of the current time goes through it, so tests can move time. */
export const CLOCK = Symbol('Clock');

/** Milliseconds since the epoch, like Date.now(). */
export type Clock = () => number;

/** The real clock. */
export const systemClock: Clock = () => Date.now();
