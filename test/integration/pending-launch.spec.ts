import { MaxUint256 } from 'ethers';
import type { INestMicroservice } from '@nestjs/common';
import { ChainRpc, NatsConnections, NatsSimulationClient, plainNatsEnv } from '@tradeinfra/service-kit';
import { HardhatNode, LocalDex, mined, TestNatsServer, within } from '@tradeinfra/test-support';
import { createSimulationService } from '../../apps/simulation-service/src/bootstrap.js';
import { loadEnv as loadSimulationEnv } from '../../apps/simulation-service/src/config/env.js';
import { PendingLaunchDetector, type PendingLaunch } from '../../apps/intent-service/src/launch/pending/pending-launch-detector.js';
import { PendingTransactions } from '../../apps/intent-service/src/launch/pending/pending-transactions.js';

/**
 * Launches seen in the mempool of a real node that mines only when told to: the pending-
 * transaction feed, the candidate filter, a simulation of each candidate on the head state by the
 * real simulation service, and the signed bytes rebuilt from the node's fields.
 */
describe('pending launches, detected before they are mined', () => {
  const SUPPLY = 10n ** 24n;
  const ETH = 10n ** 18n;
  let node: HardhatNode;
  let nats: TestNatsServer;
  let simulation: INestMicroservice;
  let simulations: NatsSimulationClient;
  let dex: LocalDex;
  let feed: PendingTransactions;
  const watched = new Set<string>();
  const warnings: string[] = [];
  /** Launches as the detector reports them, and waiters for the next one. */
  const launches: PendingLaunch[] = [];
  let nextLaunch: ((l: PendingLaunch) => void) | null = null;
  let handled: Promise<unknown> = Promise.resolve();
  const announced = new Set<string>();
  let onAnnounced: (() => void) | null = null;

  beforeAll(async () => {
    [node, nats] = await Promise.all([HardhatNode.start({ chainId: 1 }), TestNatsServer.start()]);
    dex = await LocalDex.deploy(node);
    simulation = await createSimulationService(loadSimulationEnv({ NATS_URL: nats.url, RPC_URL_1: node.url, HARDFORK_1: 'prague', SIM_WORKERS: '1' }), false);
    simulations = new NatsSimulationClient(new NatsConnections(plainNatsEnv(nats.url), 'pending-launch-test'));
    const detector = new PendingLaunchDetector({
      chainId: 1,
      rpc: new ChainRpc(node.url),
      simulate: (request) => simulations.simulate(request, 30_000),
      watch: () => ({ watch: { router: dex.router, factory: dex.factory, tokens: watched } }),
      onLaunch: (launch) => {
        launches.push(launch);
        nextLaunch?.(launch);
      },
      logger: { log: () => undefined, warn: (m: string) => warnings.push(m) },
    });
    let subscribed!: () => void;
    const live = new Promise<void>((resolve) => (subscribed = resolve));
    feed = new PendingTransactions({
      wsUrls: [node.url.replace('http', 'ws')],
      rpc: new ChainRpc(node.url),
      pollMs: 3_600_000,
      onHashes: (hashes) => {
        for (const h of hashes) announced.add(h.toLowerCase());
        handled = Promise.all([handled, detector.handle(hashes)]);
        onAnnounced?.();
      },
      logger: { log: () => undefined, warn: (m: string) => warnings.push(m) },
      onSubscribed: subscribed,
    });
    feed.start();
    await live;
    await node.rpc.call('evm_setAutomine', [false]);
  }, 180_000);

  afterAll(async () => {
    feed?.stop();
    await simulations?.close();
    await simulation?.close();
    await Promise.all([node?.stop(), nats?.dispose()]);
  });

  const erc20 = () => dex.a.PlainToken!.iface;
  const router = () => dex.a.UniswapV2Router02!.iface;
  const send = (to: string, data: string, value = 0n) =>
    node.rpc.call<string>('eth_sendTransaction', [{ from: dex.owner, to, data, value: `0x${value.toString(16)}`, gas: '0x7a1200' }]);
  const addLiquidityETH = (token: string, amount: bigint, native: bigint) =>
    send(dex.router, router().encodeFunctionData('addLiquidityETH', [token, amount, 0, 0, dex.owner, Math.floor(Date.now() / 1000) + 3600]), native);
  const launched = () => new Promise<PendingLaunch>((resolve) => (nextLaunch = resolve));
  /** `hashes` were announced by the feed and everything announced has been looked at. */
  async function settled(...hashes: string[]): Promise<void> {
    const all = () => hashes.every((h) => announced.has(h.toLowerCase()));
    while (!all()) await within(new Promise<void>((resolve) => (onAnnounced = resolve)), 30_000, `the feed to announce ${hashes.join(', ')}`);
    let seen: Promise<unknown>;
    do {
      seen = handled;
      await seen;
    } while (seen !== handled);
  }

  async function plainToken(): Promise<string> {
    const token = await dex.deployToken('PlainToken', [SUPPLY]);
    await mined(node, dex.owner, token, erc20().encodeFunctionData('approve', [dex.router, MaxUint256]));
    return token;
  }

  it('sees addLiquidityETH of a watched token while it is pending, with the reserves it will leave and its exact signed bytes', async () => {
    const token = await plainToken();
    watched.add(token);
    const next = launched();
    const hash = await addLiquidityETH(token, SUPPLY / 10n, 5n * ETH);
    const launch = await within(next, 30_000, 'the pending launch');
    expect(await node.rpc.call('eth_getTransactionReceipt', [hash])).toBeNull(); // still pending
    expect(launch).toMatchObject({ chainId: 1, txHash: hash, launches: [{ token, quote: dex.weth, tokenReserve: SUPPLY / 10n, quoteReserve: 5n * ETH }] });
    // Mined as seen: the pair the simulation named holds the reserves it predicted.
    await node.rpc.call('evm_mine', []);
    const pair = await dex.pairOf(token);
    expect(launch.launches[0]!.pair).toBe(pair);
    const reserves = dex.a.UniswapV2Pair!.iface.decodeFunctionResult(
      'getReserves',
      await node.rpc.call<string>('eth_call', [{ to: pair, data: dex.a.UniswapV2Pair!.iface.encodeFunctionData('getReserves') }, 'latest']),
    );
    expect(new Set([BigInt(reserves[0]), BigInt(reserves[1])])).toEqual(new Set([SUPPLY / 10n, 5n * ETH]));
    // The bytes a bundle would carry are the transaction itself: the node takes them as already known.
    const block = await node.rpc.call<{ transactions: string[] }>('eth_getBlockByNumber', ['latest', false]);
    expect(block.transactions).toContain(hash);
    expect(launch.stateAfter).toEqual(expect.objectContaining({ storage: expect.any(Object) }));
    // A later top-up is not a launch.
    await settled(await addLiquidityETH(token, SUPPLY / 100n, ETH / 2n));
    await node.rpc.call('evm_mine', []);
    expect(launches.filter((l) => l.txHash !== hash)).toEqual([]);
  }, 60_000);

  it('sees a launch through the token’s own openTrading(), which calls the router itself', async () => {
    const token = await dex.deployToken('TradingToken', [SUPPLY, dex.router]);
    await mined(node, dex.owner, token, '0x', 3n * ETH); // the liquidity's ETH, held by the token
    watched.add(token);
    const next = launched();
    const hash = await send(token, dex.a.TradingToken!.iface.encodeFunctionData('openTrading'));
    const launch = await within(next, 30_000, 'the openTrading launch');
    expect(launch).toMatchObject({ txHash: hash, launches: [{ token, quote: dex.weth, tokenReserve: SUPPLY, quoteReserve: 3n * ETH }] });
    await node.rpc.call('evm_mine', []);
  }, 60_000);

  describe('with calls behind the launch in its simulation (the token probe)', () => {
    /** Init code that counts down from 60,000 before it returns: a probe that takes a while. */
    const SPIN = '0x62' + (60_000).toString(16).padStart(6, '0') + '5b6001900380600457' + '00';
    const probe = { reverted: 'a probe as read' } as const;

    /** A detector of its own whose simulations stream (the real service's), with `read` reading the calls behind. */
    function streamingDetector(read: () => Map<string, typeof probe>) {
      const seen: { launch: PendingLaunch }[] = [];
      const detector = new PendingLaunchDetector({
        chainId: 1,
        rpc: new ChainRpc(node.url),
        simulate: (request, onFirstCall) => (onFirstCall ? simulations.simulateStream(request, onFirstCall, 30_000) : simulations.simulate(request, 30_000)),
        watch: () => ({ watch: { router: dex.router, factory: dex.factory, tokens: watched } }),
        behind: () => ({ calls: [{ from: dex.owner, to: null, data: SPIN }], read }),
        onLaunch: (launch) => void seen.push({ launch }),
        logger: { log: () => undefined, warn: (m: string) => warnings.push(m) },
      });
      return { detector, seen };
    }

    it('reports the launch on its own call, while the calls behind it still run, and their probe once they have', async () => {
      const token = await plainToken();
      watched.add(token);
      // The real simulation, its first call told at once and its answer held until the test lets it go.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let reported!: (launch: PendingLaunch) => void;
      const launchReported = new Promise<PendingLaunch>((resolve) => (reported = resolve));
      const detector = new PendingLaunchDetector({
        chainId: 1,
        rpc: new ChainRpc(node.url),
        simulate: async (request, onFirstCall) => {
          const result = await simulations.simulate(request, 30_000);
          onFirstCall?.(result.calls[0]!, result.blockNumber);
          await held;
          return result;
        },
        watch: () => ({ watch: { router: dex.router, factory: dex.factory, tokens: watched } }),
        behind: () => ({ calls: [{ from: dex.owner, to: null, data: SPIN }], read: () => new Map([[token, probe]]) }),
        onLaunch: reported,
        logger: { log: () => undefined, warn: (m: string) => warnings.push(m) },
      });
      const hash = await addLiquidityETH(token, SUPPLY / 10n, 2n * ETH);
      const handled = detector.handle([hash]);
      const launch = await within(launchReported, 30_000, 'the launch reported before its simulation answered');
      expect(launch).toMatchObject({ txHash: hash, launches: [{ token, tokenReserve: SUPPLY / 10n, quoteReserve: 2n * ETH }] });
      let probesKnown = false;
      void launch.probes.then(() => (probesKnown = true));
      await new Promise((resolve) => setImmediate(resolve));
      expect(probesKnown).toBe(false);
      release();
      expect((await handled).map((l) => l.txHash)).toEqual([hash]);
      expect(await launch.probes).toEqual(new Map([[token, probe]]));
      await settled(hash); // the feed's detector has looked at it too
      await node.rpc.call('evm_mine', []);
    }, 60_000);

    it('a probe that cannot be read: the launch stands, its probes come as none (a round waiting on them goes on), and the error surfaces', async () => {
      const token = await plainToken();
      watched.add(token);
      const { detector, seen } = streamingDetector(() => {
        throw new Error('unreadable probe');
      });
      const hash = await addLiquidityETH(token, SUPPLY / 10n, 2n * ETH);
      await expect(detector.handle([hash])).rejects.toThrow('unreadable probe');
      expect(seen.map((s) => s.launch.txHash)).toEqual([hash]);
      expect(await seen[0]!.launch.probes).toEqual(new Map());
      await settled(hash);
      await node.rpc.call('evm_mine', []);
    }, 60_000);
  });

  it('ignores a launch of a token nobody waits for, a launch that would revert, and unrelated transactions', async () => {
    const before = launches.length;
    const unwatched = await plainToken();
    const sent = [await addLiquidityETH(unwatched, SUPPLY / 10n, ETH)];
    // Watched, but never approved to the router: addLiquidityETH reverts.
    const unapproved = await dex.deployToken('PlainToken', [SUPPLY]);
    await node.rpc.call('evm_mine', []);
    watched.add(unapproved);
    sent.push(await addLiquidityETH(unapproved, SUPPLY / 10n, ETH), await send(dex.owner, '0x', 1n));
    await settled(...sent);
    expect(launches.length).toBe(before);
    expect(warnings).toEqual([]);
    await node.rpc.call('evm_mine', []);
  }, 60_000);
});
