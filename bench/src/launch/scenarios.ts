// The launches in order (see main.ts): BENCH_LAUNCH_RUNS of BENCH_LAUNCH_SMALL intents and
// BENCH_LAUNCH_LARGE_RUNS of BENCH_LAUNCH_LARGE, each size after BENCH_LAUNCH_WARMUP unmeasured
// ones; then the pending scenario, the intent service restarted following the mempool.
import { envInt, log, logIssues, ROOT, sleep, type BenchNats, type BenchNode, type Figures } from '../harness/index.js';
import { LocalRelay } from '@tradeinfra/test-support';
import { CHAIN_ID, children, P, run, serviceArgs, step } from './context.js';
import { launchOnce, type LaunchContext, type LaunchRun, type SigningProtocol } from './launch-once.js';
import { followServiceLog } from './service-log.js';
import { startStack, type Stack } from './stack.js';
import { summarize } from './summary.js';

export interface LaunchResults {
  runs: LaunchRun[];
  summary: Figures[];
  failureSamples: string[];
  childLogs?: Figures;
  deployment?: Figures;
}

interface Planned {
  size: number;
  warmup: boolean;
  label: string;
  protocol?: SigningProtocol;
}

/** The launches seen in their block, every size. */
async function blockLaunches(ctx: LaunchContext, results: LaunchResults): Promise<void> {
  const plan: Planned[] = [];
  for (const [size, runs] of [
    [P.small, P.smallRuns],
    [P.large, P.largeRuns],
  ] as const) {
    if (runs === 0) continue;
    for (let i = 0; i < P.warmup; i++) plan.push({ size, warmup: true, label: `${size} intents, warm-up ${i + 1}` });
    for (let i = 0; i < runs; i++) plan.push({ size, warmup: false, label: `${size} intents, launch ${i + 1}/${runs}` });
  }
  for (const p of plan) {
    step(`${p.label}: token, ${p.size} intents through the gateway, launch`);
    const r = await launchOnce(ctx, p.size, p.label);
    r.warmup = p.warmup;
    results.runs.push(r);
  }
  for (const size of [...new Set(plan.map((p) => p.size))]) {
    results.summary.push(
      summarize(
        size,
        results.runs.filter((r) => r.size === size && r.mode === 'block' && !r.warmup),
      ),
    );
  }
  results.failureSamples.push(...ctx.serviceLog.failures);
}

/**
 * The pending scenario: the intent service restarted following the node's mempool, launches left
 * pending. `relay`: restarted again with a relay (RELAY_URLS, a LocalRelay on loopback that, as a
 * builder would, puts each bundle's transactions into the node's pool in its order): the buys go
 * as one bundle behind the launch instead of one by one to the node.
 */
async function pendingLaunches(stack: Stack, results: LaunchResults, submit: 'node' | 'relay'): Promise<void> {
  const { ctx, node, intentEnv } = stack;
  const mode = submit === 'relay' ? 'relay' : 'pending';
  const runs = submit === 'relay' ? P.relayRuns : P.pendingRuns;
  let relay: LocalRelay | null = null;
  // The relay puts a bundle into the node's pool only once the service has logged its round: a
  // builder is not our node, and forwarding the buys one by one (~1.4 ms each on hardhat) while
  // the service still works would load the very machine being measured.
  const rounds = () => [...ctx.serviceLog.launches.values()].reduce((n, r) => n + r.length, 0);
  let roundsBefore = 0;
  if (submit === 'relay') {
    relay = await LocalRelay.start({
      buildOn: async (method, params) => {
        while (rounds() <= roundsBefore && !run.aborting) await sleep(2);
        return node.rpc.call(method, params);
      },
    });
    step(`restarting the intent service with a relay (RELAY_URLS_${CHAIN_ID}=${relay.url}, building into the node's pool)`);
  } else {
    step(`restarting the intent service following the mempool (MEMPOOL_LAUNCHES_${CHAIN_ID}=${P.mempool})`);
  }
  await children.stop(stack.service);
  Object.assign(intentEnv, {
    [`WS_URL_${CHAIN_ID}`]: node.url.replace(/^http/, 'ws'),
    [`MEMPOOL_LAUNCHES_${CHAIN_ID}`]: P.mempool,
    ...(relay ? { [`RELAY_URLS_${CHAIN_ID}`]: relay.url } : {}),
  });
  const followed = children.start(`intent-service-${mode}`, process.execPath, serviceArgs('intent-service'), {
    cwd: ROOT,
    env: { ...intentEnv },
    readyLine: /listening on/,
    readyTimeoutMs: 30_000,
  });
  stack.service = followed;
  ctx.serviceLog = followServiceLog(followed);
  await followed.ready;
  ctx.pids['intent-service'] = followed.child.pid;
  const what = submit === 'relay' ? 'pending launch via relay' : 'pending launch';
  // With the relay, today's signing protocol and Merkle's signature webhook launch by launch, in
  // turn, on the same service (relay-merkle: the intents' webhook speaks Merkle's protocol).
  const protocols: SigningProtocol[] = submit === 'relay' && P.relayMerkle ? ['tradeinfra', 'merkle'] : ['tradeinfra'];
  const modeOf = (protocol: SigningProtocol) => (protocol === 'merkle' ? `${mode}-merkle` : mode);
  const plan: Planned[] = [];
  for (let i = 0; i < P.warmup; i++) {
    for (const protocol of protocols) plan.push({ size: P.small, warmup: true, protocol, label: `${what}, ${protocol}, ${P.small} intents, warm-up ${i + 1}` });
  }
  for (let i = 0; i < runs; i++) {
    for (const protocol of protocols)
      plan.push({ size: P.small, warmup: false, protocol, label: `${what}, ${protocol}, ${P.small} intents, launch ${i + 1}/${runs}` });
  }
  for (const p of plan) {
    step(`${p.label}: token, ${P.small} intents through the gateway, launch left pending`);
    roundsBefore = rounds();
    const r = await launchOnce(ctx, P.small, p.label, 'pending', p.protocol);
    if (relay) await relay.settled();
    r.mode = modeOf(p.protocol ?? 'tradeinfra');
    r.warmup = p.warmup;
    results.runs.push(r);
  }
  for (const protocol of protocols) {
    results.summary.push(
      summarize(
        P.small,
        results.runs.filter((r) => r.mode === modeOf(protocol) && !r.warmup),
        modeOf(protocol),
      ),
    );
  }
  results.failureSamples.push(...ctx.serviceLog.failures);
  await relay?.stop();
}

/** BENCH_HOLD_SECONDS: the stack stays up that long after the launches, for a look by hand. */
async function hold(stack: Stack): Promise<void> {
  const seconds = envInt('BENCH_HOLD_SECONDS', 0, { min: 0, max: 3600 });
  if (seconds === 0) return;
  const { ctx, node, nats, dbName } = stack;
  const { router, factory, weth } = ctx.dex;
  log(
    `holding the stack for ${seconds} s (BENCH_HOLD_SECONDS): gateway http://127.0.0.1:${ctx.gatewayPort} (x-api-key ${ctx.key}), node ${node.url}, ` +
      `webhook ${ctx.webhookUrl}, NATS ${nats.url}, database ${dbName}; router ${router}, factory ${factory}, WETH9 ${weth}`,
  );
  const until = Date.now() + seconds * 1000;
  while (Date.now() < until && !run.aborting) await sleep(500);
}

export async function runScenarios(): Promise<{
  results: LaunchResults;
  machine: Figures;
  nats: BenchNats;
  node: BenchNode;
  intentEnv: Record<string, string>;
}> {
  const results: LaunchResults = { runs: [], summary: [], failureSamples: [] };
  await run.dropLeftovers();
  const stack = await startStack();
  await blockLaunches(stack.ctx, results);
  if (P.pendingRuns > 0) await pendingLaunches(stack, results, 'node');
  if (P.relayRuns > 0) await pendingLaunches(stack, results, 'relay');
  await hold(stack);
  step('stopping children');
  await children.stopAll();
  const { dex, deployer, wallets } = stack.ctx;
  results.childLogs = Object.fromEntries(children.list.map((e) => [e.name, logIssues(e.logPath)]));
  results.deployment = { weth: dex.weth, factory: dex.factory, router: dex.router, deployer, wallets: wallets.length };
  return { results, machine: stack.machine, nats: stack.nats, node: stack.node, intentEnv: stack.intentEnv };
}
