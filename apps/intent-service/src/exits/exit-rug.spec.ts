import { SIMULATION_MAX_CALLS } from '@tradeinfra/contracts';
import type { SimulationRequest } from '../chain/simulation-client.js';
import { routerSellCalldata } from '../execution/buy.js';
import type { ExitChain, RugWatch, SellJobs } from './exit-chain.js';
import { judgedWallets, RugStep, WALLETS_PER_JUDGEMENT } from './exit-rug.js';
import type { WatchedExit } from './exits.repository.js';
import { sellOut } from './exit-price.js';
import { watchedExit } from '../test/watched-exit.js';

const ETH = 10n ** 18n;
const POOL = { reserveToken: 1_000_000n * ETH, reserveNative: 100n * ETH };
const TOKEN = '0x00000000000000000000000000000000000000b2';
const ROUTER = '0x00000000000000000000000000000000000000c3';
const WETH = '0x00000000000000000000000000000000000000d4';
const [A, B] = ['0x00000000000000000000000000000000000000a1', '0x00000000000000000000000000000000000000a2'];
const HEAD = { number: '0x10', hash: '0xh', timestamp: '0x1', baseFeePerGas: '0x0' };
const PENDING = { hash: '0xp', nonce: '0x0', from: '0x00000000000000000000000000000000000000e5', to: TOKEN, value: '0x0', input: '0x1234', gas: '0x5208' };

const exit = (id: string, wallet: string): WatchedExit => watchedExit(id, { wallet, token: TOKEN });

const word = (address: string) => address.slice(2).padStart(64, '0');

/**
 * A token watched with exits a1, a2 (wallet A: 2 000 and 3 000 tokens) and b1 (wallet B: 1 000),
 * a pending transaction (`pending` over PENDING), a simulation answering it `pendingStatus` and
 * `statuses` for the calls after it, and a fire step recording what it is asked to fire.
 */
function setUp(statuses: number[], pending: Partial<typeof PENDING> = {}, pendingStatus = 1) {
  const exits = [exit('a1', A), exit('b1', B), exit('a2', A)];
  const amounts = new Map([
    ['a1', 2_000n * ETH],
    ['b1', 1_000n * ETH],
    ['a2', 3_000n * ETH],
  ]);
  const ready: SellJobs = { head: HEAD, jobs: exits.map((e) => ({ f: { exit: e } }) as SellJobs['jobs'][number]), short: [] };
  const watch: RugWatch = { pair: '0xpair', exits, amounts, pool: POOL, loss: 0n, decimals: 18, head: HEAD, ready: Promise.resolve(ready) };
  const chain = {
    config: { chainId: 31337, router: ROUTER, wrappedNative: WETH },
    rpc: { all: () => Promise.resolve([{ ...PENDING, ...pending }]) },
    rugWatch: new Map([[TOKEN, watch]]),
    relays: {},
  } as unknown as ExitChain;
  const requests: SimulationRequest[] = [];
  const simulation = {
    simulate: (request: SimulationRequest) => {
      requests.push(request);
      return Promise.resolve({ calls: [{ status: pendingStatus }, ...statuses.map((status) => ({ status }))] } as never);
    },
  };
  const fired: { ids: string[]; ready: string[] | null }[] = [];
  const fire = {
    fire: (...args: unknown[]) => {
      fired.push({
        ids: (args[5] as { exit: WatchedExit }[]).map((f) => f.exit.id),
        ready: (args[8] as SellJobs | null)?.jobs.map((j) => j.f.exit.id) ?? null,
      });
      return Promise.resolve();
    },
  };
  const step = new RugStep(simulation, fire, () => 0, { log: () => undefined, warn: () => undefined });
  return { chain, watch, requests, fired, run: () => step.onPending(chain, ['0xp'], 0) };
}

const sale = (wallet: string, amount: bigint, quoted: bigint) =>
  routerSellCalldata(amount, TOKEN, WETH, wallet, 2_000_000_000n, (quoted * 8_000n) / 10_000n + 1n);

describe('anti-rug judgement', () => {
  it('a transaction naming no holder: one request, the largest holder’s sale after it (at least 80 % of its quote) stands for all', async () => {
    const { requests, fired, run } = setUp([1, 1]);
    await run();
    expect(requests).toHaveLength(1);
    const calls = requests[0]!.calls;
    expect(calls.map((c) => c.from)).toEqual([PENDING.from, A, A]);
    expect(calls[0]).toEqual({ from: PENDING.from, to: TOKEN, data: '0x1234', value: '0' });
    expect(calls[2]!.data).toBe(sale(A, 3_000n * ETH, sellOut(POOL, 3_000n * ETH, 0n).out));
    expect(fired).toEqual([]);
  });

  it('the stand-in’s sale harmed (liquidity removed, a tax hike, trading off) fires every exit and ends the watch', async () => {
    const { chain, fired, run } = setUp([1, 0]);
    await run();
    expect(fired).toEqual([{ ids: ['a1', 'b1', 'a2'], ready: ['a1', 'b1', 'a2'] }]);
    expect(chain.rugWatch.has(TOKEN)).toBe(false);
  });

  it('a block of B (named in the input): B judged by its own sale in the same request; only B’s exit fires, with the round built ahead reduced to it; A’s stay watched', async () => {
    const { chain, requests, fired, run } = setUp([1, 1, 1, 0], { input: `0xdeadbeef${word(B)}` });
    await run();
    expect(requests).toHaveLength(1);
    const calls = requests[0]!.calls;
    expect(calls.map((c) => c.from)).toEqual([PENDING.from, A, A, B, B]);
    const first = sellOut(POOL, 3_000n * ETH, 0n);
    expect(calls[4]!.data).toBe(sale(B, 1_000n * ETH, sellOut(first.after, 1_000n * ETH, 0n).out));
    expect(fired).toEqual([{ ids: ['b1'], ready: ['b1'] }]);
    expect(chain.rugWatch.get(TOKEN)!.exits.map((e) => e.id)).toEqual(['a1', 'a2']);
  });

  it('a block of A, the largest holder: B stands for the others, A’s exits fire, B’s stays', async () => {
    const { requests, fired, run } = setUp([1, 1, 1, 0], { input: `0xdeadbeef${word(A)}` });
    await run();
    expect(requests[0]!.calls.map((c) => c.from)).toEqual([PENDING.from, B, B, A, A]);
    expect(fired).toEqual([{ ids: ['a1', 'a2'], ready: ['a1', 'a2'] }]);
  });

  it('fires nothing when the pending transaction itself fails, nor for its sender’s own exits', async () => {
    const failing = setUp([0, 0], {}, 0);
    await failing.run();
    expect(failing.fired).toEqual([]);
    expect(failing.chain.rugWatch.get(TOKEN)).toBe(failing.watch);
    // B sells its own tokens (named as the recipient): B is not judged; A stands for the rest.
    const own = setUp([1, 0], { from: B, input: `0xdeadbeef${word(B)}` });
    await own.run();
    expect(own.requests[0]!.calls.map((c) => c.from)).toEqual([B, A, A]);
    expect(own.fired).toEqual([{ ids: ['a1', 'a2'], ready: ['a1', 'a2'] }]);
  });

  it('a transaction naming 100 holders: 3 requests sent at once (the simulation takes 100 calls a request), each group quoted from the block’s pool', async () => {
    const wallets = Array.from({ length: 100 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`);
    const { chain, watch, requests, fired, run } = setUp([], { input: `0x${wallets.map(word).join('')}` });
    const exits = wallets.map((w, i) => exit(`e${i}`, w));
    chain.rugWatch.set(TOKEN, { ...watch, exits, amounts: new Map(exits.map((e) => [e.id, 1_000n * ETH])) });
    await run();
    expect(requests.map((r) => r.calls.length)).toEqual([
      1 + 2 * WALLETS_PER_JUDGEMENT,
      1 + 2 * WALLETS_PER_JUDGEMENT,
      1 + 2 * (100 - 2 * WALLETS_PER_JUDGEMENT),
    ]);
    expect(requests.every((r) => r.calls.length <= SIMULATION_MAX_CALLS)).toBe(true);
    expect(requests[1]!.calls[2]!.data).toBe(sale(wallets[WALLETS_PER_JUDGEMENT]!, 1_000n * ETH, sellOut(POOL, 1_000n * ETH, 0n).out));
    // The fake answers only the pending transaction: every sale "fails", every exit fires.
    expect(fired[0]!.ids).toHaveLength(100);
  });

  it('takes each wallet once, at its largest amount', () => {
    const { watch } = setUp([]);
    const judgement = judgedWallets(watch, { from: PENDING.from, input: `0x${word(B)}` });
    expect(judgement.standIn).toBe(A);
    expect(judgement.groups.map((g) => g.map((w) => [w.wallet, w.amount]))).toEqual([
      [
        [A, 3_000n * ETH],
        [B, 1_000n * ETH],
      ],
    ]);
  });
});
