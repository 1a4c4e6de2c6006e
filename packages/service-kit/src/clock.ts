/** Nest token of the wall clock (`Clock`): every production read of the current time goes through it, so tests can move time. */
export const CLOCK = Symbol('Clock');

/** Milliseconds since the epoch, as Date.now gives them. */
export type Clock = () => number;

/** The real clock: the one place production code reads the time of day. */
export const systemClock: Clock = () => Date.now();
