import { FailureReason } from './checks.js';
import { type LaunchStamp, type Outcome, type ToSubmit } from './execution.repository.js';
import { type SignResult } from './signed-buy.js';
import { FIRST_WAVE, mapLimit, ONE_BUNDLE_WAVE, SubmissionPipeline } from './submission-pipeline.js';
import { type Submission, type Submitter } from './submitter.js';

const W = '0xaa';
const LAUNCH = { type: 'block', txHash: '0xlaunch' } as const;
const ok = (id: string): SignResult => ({ ok: true, raw: `0xraw-${id}`, hash: `0xhash-${id}` });

/** A repository that settles every buy (except `cancelled`) and records what it was given. */
function fakes(opts: { cancelled?: string[]; kind?: Submitter['kind']; refuse?: string[] } = {}) {
  const rounds: { failures: string[]; submit: string[]; release: string[] }[] = [];
  const sent: Submission[][] = [];
  const behind: (string | undefined)[] = [];
  const recorded: Outcome[] = [];
  const launches: LaunchStamp[] = [];
  const repo = {
    settleRound: (_claim: string, failures: { id: string }[], submit: ToSubmit[], release: string[], _target: bigint, launch: LaunchStamp) => {
      launches.push(launch);
      rounds.push({ failures: failures.map((f) => f.id), submit: submit.map((s) => s.id), release });
      return Promise.resolve({ submitted: submit.filter((s) => !opts.cancelled?.includes(s.id)), failed: failures.length });
    },
    recordOutcomes: (outcomes: Outcome[]) => {
      recorded.push(...outcomes);
      return Promise.resolve(outcomes.length);
    },
  };
  const submitter: Submitter = {
    kind: opts.kind ?? 'bundle',
    submit: (subs, _target, launch) => {
      sent.push([...subs]);
      behind.push(launch);
      return Promise.resolve(new Map(subs.map((s) => [s.intentId, opts.refuse?.includes(s.intentId) ? 'nonce too high' : null])));
    },
  };
  const logger = { log: () => undefined, warn: () => undefined };
  return { repo, submitter, logger, rounds, sent, behind, recorded, launches };
}

describe('SubmissionPipeline', () => {
  it('sends buys in checking order as their signatures arrive, never past one still signing', async () => {
    const f = fakes();
    const p = new SubmissionPipeline(f.repo, f.submitter, 'claim', 101n, LAUNCH, f.logger);
    p.expect([
      { id: 'a', wallet: W, nonce: 1n },
      { id: 'b', wallet: W, nonce: 2n },
    ]);
    p.signedAll([['b', ok('b')]]); // out of order: waits for a
    p.signedAll([['a', ok('a')]]);
    expect(await p.finish()).toEqual({ submitted: 2, failed: 0, deferred: 0 });
    expect(f.sent.flat().map((s) => s.intentId)).toEqual(['a', 'b']);
    // Every settlement stamps the round's launch on the intents it changes.
    expect(f.launches.length).toBeGreaterThan(0);
    expect(f.launches.every((l) => l === LAUNCH)).toBe(true);
  });

  it('settles nothing before its gate answers, then holds back the buys it names with their wallets’ later ones', async () => {
    const f = fakes();
    const p = new SubmissionPipeline(f.repo, f.submitter, 'claim', 101n, LAUNCH, f.logger);
    let open!: (clashing: { wallet: string; nonce: bigint }[]) => void;
    p.gate(new Promise((resolve) => (open = resolve)));
    p.expect([
      { id: 'a', wallet: W, nonce: 4n },
      { id: 'x', wallet: '0xbb', nonce: 0n },
      { id: 'b', wallet: W, nonce: 5n },
    ]);
    p.signedAll([
      ['a', ok('a')],
      ['x', ok('x')],
      ['b', ok('b')],
    ]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(f.rounds).toHaveLength(0);
    // W has its own transaction at nonce 4 in the node's pool: a and b go back to the queue.
    open([{ wallet: W, nonce: 4n }]);
    expect(await p.finish()).toEqual({ submitted: 1, failed: 0, deferred: 2 });
    expect(f.sent.flat().map((s) => s.intentId)).toEqual(['x']);
    expect(f.rounds.flatMap((r) => r.release).sort()).toEqual(['a', 'b']);
  });

  it('a gate that answers nothing clashing lets every buy out, once', async () => {
    const f = fakes();
    const p = new SubmissionPipeline(f.repo, f.submitter, 'claim', 101n, LAUNCH, f.logger);
    p.gate(Promise.resolve([]));
    p.expect([{ id: 'a', wallet: W, nonce: 0n }]);
    p.signedAll([['a', ok('a')]]);
    expect(await p.finish()).toEqual({ submitted: 1, failed: 0, deferred: 0 });
    expect(f.sent.flat().map((s) => s.intentId)).toEqual(['a']);
  });

  it('after a failed signing, holds back the wallet’s later buys (no nonce gap) but sends other wallets’', async () => {
    const f = fakes();
    const p = new SubmissionPipeline(f.repo, f.submitter, 'claim', 101n, LAUNCH, f.logger);
    p.expect([
      { id: 'a', wallet: W, nonce: 1n },
      { id: 'other', wallet: '0xbb', nonce: 0n },
      { id: 'b', wallet: W, nonce: 2n },
    ]);
    p.signedAll([['a', { ok: false, reason: FailureReason.SignerTimeout, detail: 'timeout' }]]);
    p.signedAll([['other', ok('other')]]);
    p.signedAll([['b', ok('b')]]);
    expect(await p.finish()).toEqual({ submitted: 1, failed: 1, deferred: 1 });
    expect(f.sent.flat().map((s) => s.intentId)).toEqual(['other']);
    expect(f.rounds.flatMap((r) => r.release)).toEqual(['b']);
    expect(f.rounds.flatMap((r) => r.failures)).toEqual(['a']);
  });

  it('hands back the buys that never signed, with the plan’s failures and releases settled', async () => {
    const f = fakes();
    const p = new SubmissionPipeline(f.repo, f.submitter, 'claim', 101n, LAUNCH, f.logger);
    p.fail([{ id: 'x', reason: FailureReason.NoSigner, detail: 'none' }]);
    p.release(['r']);
    p.expect([{ id: 'a', wallet: W, nonce: 1n }]);
    expect(await p.finish()).toEqual({ submitted: 0, failed: 1, deferred: 2 });
    expect(f.sent).toEqual([]);
    expect(f.rounds.flatMap((r) => r.release).sort()).toEqual(['a', 'r']);
  });

  it('records a buy the node refused as submission_rejected (rpc submitter) and blocks the wallet behind it', async () => {
    const f = fakes({ kind: 'rpc', refuse: ['a'] });
    const p = new SubmissionPipeline(f.repo, f.submitter, 'claim', 101n, LAUNCH, f.logger);
    p.expect([{ id: 'a', wallet: W, nonce: 1n }]);
    p.signedAll([['a', ok('a')]]);
    await p.finish();
    expect(f.recorded).toEqual([{ id: 'a', status: 'failed', reason: FailureReason.SubmissionRejected, executedAt: null, data: { txHash: '0xhash-a' } }]);
  });

  /** A node whose first send answers only when released; `order` records settles and sends. */
  function slowFirstSend(refuse: string[] = []) {
    const f = fakes({ kind: 'rpc' });
    const order: string[] = [];
    let release!: () => void;
    const firstSendHeld = new Promise<void>((resolve) => (release = resolve));
    const repo = {
      ...f.repo,
      settleRound: (...args: Parameters<typeof f.repo.settleRound>) => {
        order.push(`settle ${args[2].map((s) => s.id).join(',') || 'none'}${args[3].length > 0 ? ` holding ${args[3].join(',')}` : ''}`);
        return f.repo.settleRound(...args);
      },
    };
    let sends = 0;
    const submitter: Submitter = {
      kind: 'rpc',
      submit: async (subs) => {
        const ids = subs.map((x) => x.intentId).join(',');
        order.push(`send ${ids}`);
        if (sends++ === 0) await firstSendHeld;
        order.push(`sent ${ids}`);
        return new Map(subs.map((x) => [x.intentId, refuse.includes(x.intentId) ? 'nonce too high' : null]));
      },
    };
    return { pipeline: new SubmissionPipeline(repo, submitter, 'claim', 101n, LAUNCH, f.logger), order, release };
  }
  const turn = () => new Promise((resolve) => setImmediate(resolve));

  it('settles the next wave while the one before is being sent, and sends it after that one', async () => {
    const { pipeline: p, order, release } = slowFirstSend();
    p.expect([
      { id: 'a', wallet: W, nonce: 1n },
      { id: 'b', wallet: '0xbb', nonce: 1n },
    ]);
    p.signedAll([['a', ok('a')]]);
    await turn();
    p.signedAll([['b', ok('b')]]);
    await turn();
    expect(order).toEqual(['settle a', 'send a', 'settle b']);
    release();
    expect(await p.finish()).toEqual({ submitted: 2, failed: 0, deferred: 0 });
    expect(order).toEqual(['settle a', 'send a', 'settle b', 'sent a', 'send b', 'sent b']);
  });

  it('settles a wallet’s next buy only once its buy being sent is answered, and holds it back when the node refused that one', async () => {
    const { pipeline: p, order, release } = slowFirstSend(['a']);
    p.expect([
      { id: 'a', wallet: W, nonce: 1n },
      { id: 'c', wallet: W, nonce: 2n },
    ]);
    p.signedAll([['a', ok('a')]]);
    await turn();
    p.signedAll([['c', ok('c')]]);
    await turn();
    expect(order).toEqual(['settle a', 'send a']);
    release();
    expect(await p.finish()).toEqual({ submitted: 1, failed: 0, deferred: 1 });
    expect(order).toEqual(['settle a', 'send a', 'sent a', 'settle none holding c']);
  });

  it(`sends a round's first ${FIRST_WAVE} buys before settling the rest of a batch signed at once, in order`, async () => {
    const { pipeline: p, order, release } = slowFirstSend();
    const ids = Array.from({ length: FIRST_WAVE + 5 }, (_, i) => `b${i}`);
    p.expect(ids.map((id, i) => ({ id, wallet: `0x${i}`, nonce: 1n })));
    p.signedAll(ids.map((id) => [id, ok(id)]));
    await turn();
    const first = ids.slice(0, FIRST_WAVE).join(',');
    const rest = ids.slice(FIRST_WAVE).join(',');
    expect(order).toEqual([`settle ${first}`, `send ${first}`, `settle ${rest}`]);
    release();
    await p.finish();
    expect(order.slice(3)).toEqual([`sent ${first}`, `send ${rest}`, `sent ${rest}`]);
  });

  it('behind a pending launch through relays, settles once the last signature is in and sends one bundle, launch first', async () => {
    const f = fakes({ cancelled: ['c'] });
    const p = new SubmissionPipeline(f.repo, f.submitter, 'claim', 101n, LAUNCH, f.logger, '0xlaunch-raw');
    p.expect([
      { id: 'a', wallet: W, nonce: 1n },
      { id: 'b', wallet: '0xbb', nonce: 0n },
      { id: 'c', wallet: '0xcc', nonce: 0n },
    ]);
    p.signedAll([['a', ok('a')]]);
    await Promise.resolve();
    p.signedAll([['c', ok('c')]]);
    p.signedAll([['b', ok('b')]]);
    expect(await p.finish()).toEqual({ submitted: 2, failed: 0, deferred: 0 });
    expect(f.rounds.map((r) => r.submit)).toEqual([['a', 'b', 'c']]); // one settlement, not one per signature
    expect(f.sent.map((bundle) => bundle.map((s) => s.intentId))).toEqual([['a', 'b']]);
    expect(f.behind).toEqual(['0xlaunch-raw']);
  });

  it('behind a pending launch through relays, settles a batch’s worth of signatures while the rest still sign, and still sends one bundle', async () => {
    const f = fakes();
    const p = new SubmissionPipeline(f.repo, f.submitter, 'claim', 101n, LAUNCH, f.logger, '0xlaunch-raw');
    const first = ONE_BUNDLE_WAVE + 5;
    const ids = Array.from({ length: first + 3 }, (_, i) => `b${i}`);
    p.expect(ids.map((id) => ({ id, wallet: id, nonce: 0n })));
    p.signedAll(ids.slice(0, first).map((id) => [id, ok(id)])); // a batch's answer: one wave
    await new Promise((resolve) => setImmediate(resolve));
    expect(f.rounds.map((r) => r.submit)).toEqual([ids.slice(0, first)]);
    expect(f.sent).toEqual([]);
    for (const id of ids.slice(first)) p.signedAll([[id, ok(id)]]); // fewer than a wave: settled with the last
    expect(await p.finish()).toEqual({ submitted: ids.length, failed: 0, deferred: 0 });
    expect(f.rounds.map((r) => r.submit.length)).toEqual([first, 3]);
    expect(f.sent.map((bundle) => bundle.map((s) => s.intentId))).toEqual([ids]);
  });

  it('sends nothing behind a pending launch when no buy settled', async () => {
    const f = fakes({ cancelled: ['a'] });
    const p = new SubmissionPipeline(f.repo, f.submitter, 'claim', 101n, LAUNCH, f.logger, '0xlaunch-raw');
    p.expect([{ id: 'a', wallet: W, nonce: 1n }]);
    p.signedAll([['a', ok('a')]]);
    expect(await p.finish()).toEqual({ submitted: 0, failed: 0, deferred: 0 });
    expect(f.sent).toEqual([]);
  });

  it('does not send a buy cancelled before settlement', async () => {
    const f = fakes({ cancelled: ['a'] });
    const p = new SubmissionPipeline(f.repo, f.submitter, 'claim', 101n, LAUNCH, f.logger);
    p.expect([{ id: 'a', wallet: W, nonce: 1n }]);
    p.signedAll([['a', ok('a')]]);
    expect(await p.finish()).toEqual({ submitted: 0, failed: 0, deferred: 0 });
    expect(f.sent).toEqual([]);
  });
});

describe('mapLimit', () => {
  it('keeps the items’ order and never runs more than the limit at once', async () => {
    let running = 0;
    let most = 0;
    const out = await mapLimit([1, 2, 3, 4, 5], 2, async (n) => {
      running++;
      most = Math.max(most, running);
      await Promise.resolve();
      running--;
      return n * 10;
    });
    expect(out).toEqual([10, 20, 30, 40, 50]);
    expect(most).toBe(2);
  });
});
