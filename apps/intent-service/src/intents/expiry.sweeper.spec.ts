import { ExpirySweeper } from './expiry.sweeper.js';
import type { IntentServiceEnv } from '../config/env.js';

const HOUR = 60 * 60 * 1000;

/** A sweeper on fake repositories and a clock the test moves, counting the housekeeping purges. */
function sweeper() {
  let now = Date.UTC(2026, 0, 1);
  const purged = { keys: 0, outbox: 0 };
  const intents = {
    expireDue: () => Promise.resolve(0),
    errorUnfollowed: () => Promise.resolve(0),
    purgeIdempotencyKeys: () => (purged.keys++, Promise.resolve(0)),
  };
  const outbox = { purgePublished: () => (purged.outbox++, Promise.resolve(0)) };
  const env = {
    EXPIRY_SWEEP_INTERVAL_MS: 1_000,
    EXECUTION_OUTCOME_GRACE_MINUTES: 10,
    IDEMPOTENCY_TTL_HOURS: 24,
    INTENT_EVENTS_MAX_AGE_HOURS: 24,
  } as IntentServiceEnv;
  const s = new ExpirySweeper(intents as never, outbox as never, { wake: () => undefined } as never, env, () => now);
  return { s, purged, advance: (ms: number) => (now += ms) };
}

describe('ExpirySweeper housekeeping', () => {
  it('purges old idempotency keys and published outbox rows at most once an hour, by the injected clock', async () => {
    const { s, purged, advance } = sweeper();
    await s.sweepOnce();
    await s.sweepOnce();
    expect(purged).toEqual({ keys: 1, outbox: 1 });
    advance(HOUR - 1);
    await s.sweepOnce();
    expect(purged).toEqual({ keys: 1, outbox: 1 });
    advance(2);
    await s.sweepOnce();
    expect(purged).toEqual({ keys: 2, outbox: 2 });
  });
});
