import { claimed, ETH, fakeChain, launched, silentLogger, WALLET } from '../test/round-fakes.js';
import type { SenderState } from './buy-terms.js';
import type { PoolState, TokenProbe } from './checks.js';
import type { ClaimedIntent } from './execution.types.js';
import { MINED_LAUNCH } from './early-probes.js';
import { PlanStep, type PlanReads } from './plan-step.js';

const HEAD = { number: '0x64', baseFeePerGas: '0x1', hash: '0xhead', timestamp: '0x0' };
const FULL: PoolState = { reserveNative: 10n * ETH, reserveToken: 1_000_000n * ETH, liquidityCents: null };
const PROBE: TokenProbe = { buyTax: 0n, sellTax: 0n, buyGas: 120_000n };
const senders = (): SenderState => ({ nonce: new Map([[WALLET, 7n]]), balance: new Map([[WALLET, 10n * ETH]]), wrapped: new Map(), nonceSpent: new Set() });

/** A plan step on fake reads and a fake prober, recording what it was asked. */
function step(opts: { pool?: PoolState; early?: TokenProbe | null; pendingBlock?: unknown[]; now?: () => number } = {}) {
  const probed: { intent: string; head: bigint }[] = [];
  const earlyAsked: string[] = [];
  const waitingRead: number[] = [];
  const senderReads: { pendingAhead?: Promise<unknown[] | null> }[] = [];
  const reads: PlanReads = {
    launchPool: () => Promise.resolve(opts.pool ?? FULL),
    senders: (_chain, _intents, _head, _out, _heads, pendingAhead) => {
      senderReads.push({ pendingAhead });
      return Promise.resolve(senders());
    },
    stableLayout: () => Promise.resolve(null),
    pendingBlock: () => Promise.resolve(opts.pendingBlock ?? [null]),
  };
  const plan = new PlanStep({
    repo: {
      pendingNonces: () => Promise.resolve(new Map()),
      waitingSenders: (chainId: number) => {
        waitingRead.push(chainId);
        return Promise.resolve([]);
      },
    },
    prober: {
      probe: (_config, _launch, head: bigint, _pool, intent: ClaimedIntent) => {
        probed.push({ intent: intent.id, head });
        return Promise.resolve(PROBE);
      },
    },
    earlyProbes: {
      take: (_chainId, _token, txHash) => {
        earlyAsked.push(txHash);
        return Promise.resolve(opts.early ?? null);
      },
    },
    defaultGasTip: 1_000_000_000n,
    prefetchSenders: 100,
    now: opts.now ?? (() => 0),
    logger: silentLogger,
    reads,
  });
  return { plan, probed, earlyAsked, waitingRead, senderReads };
}

describe('PlanStep (round step 2: plan)', () => {
  it('probes the token with the first intent that has something to buy, and builds each buy for the block after the head', async () => {
    const s = step();
    const plan = await s.plan.plan(fakeChain(), launched(), HEAD, [claimed('nothing', { buyAmount: '0' }), claimed('a')]);
    expect(s.probed).toEqual([{ intent: 'a', head: 100n }]);
    expect(plan.targetBlock).toBe(101n);
    expect(plan.jobs.map((j) => [j.intent.id, j.tx.nonce])).toEqual([['a', 7]]);
    expect(plan.failures.map((f) => [f.id, f.reason])).toEqual([['nothing', 'nothing_to_buy']]);
    expect(plan.release).toEqual([]);
  });

  it('hands every intent back, unchecked and unprobed, when the pool holds nothing (a reorg undid the launch)', async () => {
    const s = step({ pool: { reserveNative: 0n, reserveToken: 0n, liquidityCents: null } });
    const plan = await s.plan.plan(fakeChain(), launched(), HEAD, [claimed('a'), claimed('b')]);
    expect(plan).toEqual({ targetBlock: 101n, failures: [], jobs: [], release: ['a', 'b'] });
    expect(s.probed).toEqual([]);
  });

  it('behind a pending launch, uses the probe made as the launch was recognised rather than probing again', async () => {
    const s = step({ early: PROBE });
    const plan = await s.plan.plan(fakeChain(), launched(true), HEAD, [claimed('a')]);
    expect(s.earlyAsked).toEqual(['0xlaunch']);
    expect(s.probed).toEqual([]);
    expect(plan.jobs).toHaveLength(1);
  });

  it('after a launch in a mined block, uses the probe the watcher started as it found the launch (kept under MINED_LAUNCH)', async () => {
    const s = step({ early: PROBE });
    const plan = await s.plan.plan(fakeChain(), launched(), HEAD, [claimed('a')]);
    expect(s.earlyAsked).toEqual([MINED_LAUNCH]);
    expect(s.probed).toEqual([]);
    expect(plan.jobs).toHaveLength(1);
  });

  it('where the node gives pending nonces as one block, numbers the buys first and checks them against that block (poolCheck)', async () => {
    const chain = fakeChain({ traits: () => Promise.resolve({ pendingNonces: 'block', orderedBatches: false }) });
    const clash = { transactions: [{ from: WALLET, nonce: '0x7' }] };
    const s = step();
    const plan = await s.plan.plan(chain, launched(true), HEAD, [claimed('a')], Promise.resolve([clash]));
    // Numbered without waiting for the pending block...
    expect(await s.senderReads[0]!.pendingAhead).toEqual([null]);
    // ...and the buy meeting its sender's pending transaction is named, to go back to the queue.
    expect((await plan.poolCheck!).map((j) => j.intent.id)).toEqual(['a']);
  });

  it('reads the waiting senders ahead once per head, again only after 250 ms, and never where the mempool is not followed', async () => {
    let now = 1_000;
    const s = step({ now: () => now });
    const chain = fakeChain();
    s.plan.prefetch(chain, 100n);
    s.plan.prefetch(chain, 100n);
    now += 251;
    s.plan.prefetch(chain, 100n);
    s.plan.prefetch(chain, 99n); // an older head: nothing
    s.plan.prefetch(fakeChain({ config: { ...chain.config, mempool: 'off' } }), 101n);
    await Promise.resolve();
    expect(s.waitingRead).toEqual([31337, 31337]);
  });
});
