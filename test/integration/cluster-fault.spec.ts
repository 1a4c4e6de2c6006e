import { join } from 'node:path';
import { runClusterFaults, type FaultReport } from '@tradeinfra/test-support';

/**
 * A short run of `npm run bench:cluster`: the suite on a local 3-node NATS cluster (R3 streams)
 * under create load and MEV-capture publishing; kill -9 the INTENT_EVENTS leader, restart it,
 * kill -9 the MEV_CAPTURE leader for good. Nothing acknowledged may be lost, duplicated or
 * reordered, and a create caught in the failover either completes or gets a 503 with Retry-After.
 */
describe('losing a NATS node under load', () => {
  let report: FaultReport;
  beforeAll(async () => {
    report = await runClusterFaults({
      root: join(import.meta.dirname, '..', '..'),
      creators: 3,
      mevPerSecond: 40,
      intentReplicas: 2,
      steadyMs: 2_000,
      downMs: 2_000,
    });
  }, 150_000);

  it('loses no acknowledged create, and a retry with the same Idempotency-Key gives the same intent', () => {
    expect(report.creates.acked).toBeGreaterThan(50);
    expect(report.creates.lost).toBe(0);
    expect(report.creates.retriedWithKey).toBeGreaterThan(0);
    expect(report.creates.idempotencyMismatches).toBe(0);
  });

  it('answers a create caught in the failover with 503 and Retry-After, nothing else', () => {
    expect(report.answers.status503WithoutRetryAfter).toBe(0);
    expect(report.answers.other).toEqual({});
  });

  it('publishes every intent’s events once, in order', () => {
    expect(report.outbox.events).toBeGreaterThanOrEqual(report.creates.acked + report.creates.cancelled);
    expect(report.outbox).toMatchObject({ lost: 0, duplicated: 0, intentsOutOfOrder: 0 });
  });

  it('turns every acknowledged MEV-capture event into exactly one ledger entry', () => {
    expect(report.mevCapture.acked).toBeGreaterThan(50);
    expect(report.mevCapture).toMatchObject({ lost: 0, duplicated: 0, ledgerEntries: report.mevCapture.acked });
  });

  it('keeps the streams replicated on the surviving nodes', () => {
    expect(report.faults.map((f) => f.fault)).toEqual(['kill -9 the INTENT_EVENTS leader', 'restart it', 'kill -9 the MEV_CAPTURE leader for good']);
    for (const name of ['INTENT_EVENTS', 'MEV_CAPTURE']) expect(report.streams[name]?.replicas).toBe(3);
  });
});
