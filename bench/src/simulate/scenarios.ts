// The scenarios in order (see main.ts).
import http from 'node:http';
import os from 'node:os';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { bootstrapDatabase } from '../../../infra/postgres/bootstrap.mjs';
import { BenchNats, BenchNode, Figures, ROOT, envInt, hostInfo, log, logIssues, packageVersion, request, round, waitFor200 } from '../harness/index.js';
import { JsonRpcProxy, freePort } from '@tradeinfra/test-support';
import { checkSimulation, deploy, newEachTimeSwapWorkload, simulateBody, unseenSwapWorkload, workloads } from './chain.js';
import { P, children, env, hex, pool, productApps, proxies, rpc, run, runNode, startHardhat, state, step } from './context.js';
import { coldRun, gatewayRun, makeLabeller, nodeRun, phaseLimitMs } from './runs.js';
import type pg from 'pg';

// ---------------------------------------------------------------- main

export async function main() {
  const results: Figures = { scenarios: {}, cold: {}, notes: [] };
  await run.dropLeftovers();

  // ---- 1. the node and the contracts
  step('starting hardhat node');
  const node = await startHardhat();
  log(`  ${node.version} at ${node.url} (pid ${node.pid})`);
  step('deploying ERC20 ×2, WETH9, UniswapV2Factory, UniswapV2Router02; adding liquidity');
  const chain = await deploy(node.url);
  const pinned = BigInt(await rpc(node.url, 'eth_blockNumber'));
  log(`  tokenA ${chain.contracts.tokenA}, tokenB ${chain.contracts.tokenB}, router ${chain.contracts.router}, pair ${chain.contracts.pairAB}; head ${pinned}`);
  const W = workloads(chain);
  const coinbase = (await rpc(node.url, 'eth_getBlockByNumber', [hex(pinned), false])).miner;
  const describe = makeLabeller(chain, coinbase);

  // ---- 2. NATS, database, services
  step('starting NATS');
  const nats = await run.startNats();
  log(`  NATS ${nats.private ? `private nats-server at ${nats.url}` : `shared at ${nats.url}`}`);
  const dbName = `ti_bench_${process.pid}_${randomBytes(4).toString('hex')}`;
  step(`creating database ${dbName}`);
  run.useDatabase(dbName); // from here on, cleanup drops it (IF EXISTS)
  await bootstrapDatabase({ env, database: dbName });
  // No chain settings of the caller's leak into the services: the bench sets RPC_URL_1 itself.
  const cleanEnv = Object.fromEntries(Object.entries<any>(env).filter(([k]) => !/^(RPC_URL|HARDFORK)_\d+$/.test(k)));
  const baseEnv = { ...cleanEnv, PGDATABASE: dbName, NATS_URL: nats.url, LOG_FORMAT: 'json', NO_COLOR: '1' };
  // Every app with a database migrates it (intent, payout, gateway … whatever is built).
  for (const app of productApps().filter((a) => existsSync(join(ROOT, 'apps', a, 'dist/database/migrate.js')))) {
    const out = runNode(`apps/${app}/dist/database/migrate.js`, [], baseEnv);
    log(`  ${out.trim()}`);
  }
  const key = runNode('apps/gateway/dist/cli/apikey.js', ['create', '--name', 'bench', '--scopes', 'simulate'], baseEnv).trim();
  if (!/^ti_[A-Za-z0-9_-]{43}$/.test(key)) throw new Error(`apikey create printed something unexpected: ${key.slice(0, 80)}`);
  const db = pool(dbName, 1);
  const machine = await machineInfo(db, nats, node);

  const productEnv = { ...baseEnv, RATE_LIMIT_PER_SECOND: '1000000', RATE_LIMIT_BURST: '1000000', HOST: '127.0.0.1' };
  const profiledArgs = (name: string, main: string) => {
    if (process.env.BENCH_CPU_PROF !== '1') return [join(ROOT, main)];
    state.profileDir ??= mkdtempSync(join(os.tmpdir(), 'ti-bench-sim-prof-'));
    // Nest re-raises SIGTERM after its shutdown hooks, and a process killed by a signal writes no
    // profile: exit normally on SIGTERM instead (this listener runs first).
    return [
      '--cpu-prof',
      // One directory per process: each of its threads (the simulation workers too) writes its own profile there.
      '--cpu-prof-dir',
      join(state.profileDir, name),
      '--import',
      'data:text/javascript,process.on("SIGTERM",()=>process.exit(0))',
      join(ROOT, main),
    ];
  };
  const simulationArgs = (name: string) => profiledArgs(name, 'apps/simulation-service/dist/main.js');
  const startSimulation = async (name: any, rpcUrl: any) => {
    const entry = children.start(name, process.execPath, simulationArgs(name), {
      cwd: ROOT,
      env: { ...productEnv, RPC_URL_1: rpcUrl },
      readyLine: /listening on/,
      readyTimeoutMs: 30_000,
    });
    await entry.ready;
    return entry;
  };

  // The gateway's /ready wants every service to answer: start the others too (intent, payout, …).
  const others = productApps().filter((a) => a !== 'gateway' && a !== 'simulation-service');
  step(`starting ${others.join(', ')}, the simulation service (RPC: the node, directly) and the gateway`);
  for (const app of others) {
    const entry = children.start(app, process.execPath, [join(ROOT, 'apps', app, 'dist/main.js')], {
      cwd: ROOT,
      env: productEnv,
      readyLine: /listening on/,
      readyTimeoutMs: 30_000,
    });
    await entry.ready;
  }
  const simWarm = await startSimulation('simulation-service-warm', node.url);
  const gatewayPort = await freePort();
  const gateway = children.start('gateway', process.execPath, profiledArgs('gateway', 'apps/gateway/dist/main.js'), {
    cwd: ROOT,
    env: { ...productEnv, PORT: String(gatewayPort) },
    readyLine: /listening on/,
    readyTimeoutMs: 30_000,
  });
  await gateway.ready;
  await waitFor200(gatewayPort, '/ready', { children, timeoutMs: 30_000, what: 'gateway /ready' });

  // One answer of each, kept in the JSON (and a first check that the bundles pass at all).
  const sampleAgent = new http.Agent({ keepAlive: false });
  results.sampleAnswers = {};
  for (const [name, w] of Object.entries<any>(W)) {
    const res = await request(sampleAgent, gatewayPort, {
      method: 'POST',
      path: '/v1/simulate',
      headers: { 'x-api-key': key },
      body: simulateBody(w, pinned),
      timeoutMs: 30_000,
    });
    const wrong = res.status === 200 ? checkSimulation(w, res, null) : `http ${res.status}: ${res.body.slice(0, 300)}`;
    if (wrong) throw new Error(`${w.label}: the first simulation is wrong: ${wrong}`);
    results.sampleAnswers[name] = JSON.parse(res.body);
    log(`  ${w.label}: ok, gasUsed ${results.sampleAnswers[name].calls.map((c: any) => BigInt(c.gasUsed)).join(' + ')}`);
  }

  const warmPids = { gateway: gateway.child.pid, 'simulation-service': simWarm.child.pid, hardhat: node.pid, ...(nats.pid ? { 'nats-server': nats.pid } : {}) };
  const nodePids = { hardhat: node.pid };
  const S = results.scenarios;

  // ---- 3. WARM, through the gateway, block pinned (cached after the first request); then `latest`
  for (const [name, w] of Object.entries<any>(W)) {
    S[`${name}WarmC1`] = await gatewayRun(`${w.label}, warm, via the gateway, block ${pinned}`, gatewayPort, key, w, pinned, {
      concurrency: 1,
      total: P.latencyRequests,
      maxMs: phaseLimitMs(),
    });
    S[`${name}WarmLatestC1`] = await gatewayRun(`${w.label}, warm, via the gateway, block latest`, gatewayPort, key, w, null, {
      concurrency: 1,
      total: P.latencyRequests,
      maxMs: phaseLimitMs(),
    });
    S[`${name}WarmCN`] = await gatewayRun(`${w.label}, warm, via the gateway, block ${pinned}`, gatewayPort, key, w, pinned, {
      concurrency: P.concurrency,
      total: P.throughputRequests,
      maxMs: P.throughputSeconds * 1000,
      pids: warmPids,
    });
  }

  // The swap again, a new bundle every request: simulated every time (no kept answer fits).
  const swapNew = newEachTimeSwapWorkload(chain, W.swap);
  S.swapNewWarmC1 = await gatewayRun(`${swapNew.label}, warm, via the gateway, block ${pinned}`, gatewayPort, key, swapNew, pinned, {
    concurrency: 1,
    total: P.latencyRequests,
    maxMs: phaseLimitMs(),
  });
  S.swapNewWarmCN = await gatewayRun(`${swapNew.label}, warm, via the gateway, block ${pinned}`, gatewayPort, key, swapNew, pinned, {
    concurrency: P.concurrency,
    total: P.throughputRequests,
    maxMs: P.throughputSeconds * 1000,
    pids: warmPids,
  });
  // The node's eth_call of the swap right after: the ratios' anchor, measured under the same load
  // as the runs just before it (the box is shared; a minute later its load may be another). Its
  // warm-up is as long as phase 2's before its own run (warm-up and concurrency-1 run): hardhat's
  // JavaScript is then as warm, and a cold node never flatters the ratio.
  S.swapNodeEthCallAdjacentCN = await nodeRun(`${W.swap.label}, node eth_call (right after the warm runs)`, node, 'eth_call', W.swap, hex(pinned), {
    concurrency: P.concurrency,
    total: P.throughputRequests,
    maxMs: P.throughputSeconds * 1000,
    pids: nodePids,
    warmupRequests: P.warmup + P.latencyRequests,
  });

  // ---- 4. the node's own eth_call and debug_traceCall (struct logger), straight to the node
  const tag = hex(pinned);
  for (const [name, w] of Object.entries<any>(W)) {
    for (const method of ['eth_call', 'debug_traceCall']) {
      const short = method === 'eth_call' ? 'EthCall' : 'Trace';
      S[`${name}Node${short}C1`] = await nodeRun(`${w.label}, node ${method}`, node, method, w, tag, {
        concurrency: 1,
        total: P.latencyRequests,
        maxMs: phaseLimitMs(),
      });
      S[`${name}Node${short}CN`] = await nodeRun(`${w.label}, node ${method}`, node, method, w, tag, {
        concurrency: P.concurrency,
        total: P.throughputRequests,
        maxMs: P.throughputSeconds * 1000,
        pids: nodePids,
      });
    }
    // For scale only (no target): the struct logger without memory and storage, the least a
    // frame-by-frame tracer needs (the stack holds call targets and values).
    S[`${name}NodeTraceLeanCN`] = await nodeRun(`${w.label}, node debug_traceCall {disableMemory, disableStorage}`, node, 'debug_traceCall', w, tag, {
      concurrency: P.concurrency,
      total: P.throughputRequests,
      maxMs: P.throughputSeconds * 1000,
      pids: nodePids,
      traceOptions: { disableMemory: true, disableStorage: true },
    });
  }

  // ---- 5. COLD: a simulation service whose RPC is the delaying proxy (the warm one stops first:
  //      both would share the `simulation-service` queue group)
  step(`stopping the warm simulation service; starting the delay proxy (+${P.proxyDelayMs} ms) and a simulation service behind it`);
  await children.stop(simWarm);
  state.proxy = await JsonRpcProxy.start({ upstream: node.url, delayMs: P.proxyDelayMs });
  proxies.push(state.proxy);
  const simCold = await startSimulation('simulation-service-cold', state.proxy.url);
  await waitFor200(gatewayPort, '/ready', { children, timeoutMs: 30_000, what: 'gateway /ready (cold simulation service)' });

  // The service's first simulations ever: JIT, and whatever it learns about the upstream once.
  step('first simulations of the cold service (not counted; what they sent upstream is kept)');
  results.cold.firstRequests = [];
  {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    for (const [name, w] of Object.entries<any>(W)) {
      await rpc(node.url, 'evm_mine');
      const head = BigInt(await rpc(node.url, 'eth_blockNumber'));
      state.proxy.reset();
      const t0 = performance.now();
      const res = await request(agent, gatewayPort, {
        method: 'POST',
        path: '/v1/simulate',
        headers: { 'x-api-key': key },
        body: simulateBody(w, head),
        timeoutMs: 30_000,
      });
      const ms = performance.now() - t0;
      const wrong = res.status === 200 ? checkSimulation(w, res, null) : `http ${res.status}: ${res.body.slice(0, 300)}`;
      if (wrong) throw new Error(`${w.label}: the first cold simulation is wrong: ${wrong}`);
      const s = state.proxy.stats();
      results.cold.firstRequests.push({
        workload: name,
        ms: round(ms, 2),
        roundTrips: s.requests,
        calls: s.calls,
        byMethod: s.byMethod,
        perRoundTrip: state.proxy.trace().map(describe),
      });
      log(`  ${w.label}: ${round(ms, 1)} ms, ${s.requests} round trips: ${JSON.stringify(s.byMethod)}`);
    }
    // A few more unmeasured cold runs to settle the JIT.
    for (let i = 0; i < 3; i++) {
      for (const w of Object.values<any>(W)) {
        await rpc(node.url, 'evm_mine');
        await request(agent, gatewayPort, {
          method: 'POST',
          path: '/v1/simulate',
          headers: { 'x-api-key': key },
          body: simulateBody(w, null),
          timeoutMs: 30_000,
        });
      }
    }
    agent.destroy();
  }
  for (const [name, w] of Object.entries<any>(W)) {
    for (const mode of ['explicit', 'latest']) {
      results.cold[`${name}${mode === 'explicit' ? 'Explicit' : 'Latest'}`] = await coldRun(
        `${w.label}, cold, via the gateway, block ${mode === 'explicit' ? 'explicit (new head)' : 'latest'}`,
        gatewayPort,
        key,
        node,
        w,
        mode,
        describe,
      );
    }
  }
  // The same swap as a shape never seen before (a new sender every request).
  const unseen = unseenSwapWorkload(chain, W.swap);
  for (const mode of ['explicit', 'latest']) {
    results.cold[`swapUnseen${mode === 'explicit' ? 'Explicit' : 'Latest'}`] = await coldRun(
      `${unseen.label}, cold, via the gateway, block ${mode === 'explicit' ? 'explicit (new head)' : 'latest'}`,
      gatewayPort,
      key,
      node,
      unseen,
      mode,
      describe,
    );
  }

  // ---- 6. the same cold samples with an upstream that answers eth_createAccessList (hardhat does
  //      not: the proxy emulates it from debug_traceCall, inside the same delayed round trip).
  //      A new service process: the first one has learnt that the node lacks the method.
  if (P.emulatedAccessList) {
    step('stopping the cold simulation service; starting a proxy that emulates eth_createAccessList, and a simulation service behind it');
    await children.stop(simCold);
    state.proxy = await JsonRpcProxy.start({ upstream: node.url, delayMs: P.proxyDelayMs, emulateAccessList: true });
    proxies.push(state.proxy);
    const simAcl = await startSimulation('simulation-service-access-list', state.proxy.url);
    await waitFor200(gatewayPort, '/ready', { children, timeoutMs: 30_000, what: 'gateway /ready (access-list simulation service)' });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    for (let i = 0; i < 3; i++) {
      for (const w of Object.values<any>(W)) {
        await rpc(node.url, 'evm_mine');
        const res = await request(agent, gatewayPort, {
          method: 'POST',
          path: '/v1/simulate',
          headers: { 'x-api-key': key },
          body: simulateBody(w, null),
          timeoutMs: 30_000,
        });
        const wrong = res.status === 200 ? checkSimulation(w, res, null) : `http ${res.status}: ${res.body.slice(0, 300)}`;
        if (wrong) throw new Error(`${w.label}: a simulation behind the access-list proxy is wrong: ${wrong}`);
      }
    }
    agent.destroy();
    results.cold.accessListEmulated = {};
    for (const [name, w] of Object.entries<any>(W)) {
      results.cold.accessListEmulated[name] = await coldRun(
        `${w.label}, cold, eth_createAccessList emulated, block explicit (new head)`,
        gatewayPort,
        key,
        node,
        w,
        'explicit',
        describe,
      );
    }
    results.cold.accessListEmulated.simulationServicePid = simAcl.child.pid;
  }

  const hold = envInt('BENCH_HOLD_SECONDS', 0, { min: 0, max: 3600 });
  if (hold > 0) {
    log(
      `holding the stack for ${hold} s (BENCH_HOLD_SECONDS): gateway http://127.0.0.1:${gatewayPort} (x-api-key ${key}), node ${node.url}, ` +
        `proxy ${state.proxy.url} (the running simulation service's RPC), NATS ${nats.url}, database ${dbName}; contracts ${JSON.stringify(chain.contracts)}, accounts ${JSON.stringify(chain.accounts)}`,
    );
    const until = Date.now() + hold * 1000;
    while (Date.now() < until && !run.aborting) await new Promise((r) => setTimeout(r, 500));
  }
  step('stopping children');
  await children.stopAll();
  results.childLogs = Object.fromEntries(children.list.map((e) => [e.name, logIssues(e.logPath)]));
  results.proxyTotals = proxies.map((p, i) => ({ role: i === 0 ? 'cold' : 'cold, eth_createAccessList emulated', delayMs: p.delayMs, ...p.totals() }));
  results.deployment = { ...chain.contracts, ...chain.accounts, pinnedBlock: Number(pinned) };
  return { results, machine, nats, node, simColdPid: simCold.child.pid };
}

export async function machineInfo(db: pg.Pool, nats: BenchNats, node: BenchNode) {
  return {
    ...hostInfo(),
    postgres: (await db.query('SELECT version() AS v')).rows[0].v,
    nats: { url: nats.url, private: nats.private, version: nats.version },
    chainNode: { client: node.version, hardhat: packageVersion('hardhat'), edr: packageVersion('@nomicfoundation/edr'), config: node.config },
    ethereumjsVm: packageVersion('@ethereumjs/vm'),
    code: codeVersion(),
  };
}

/** Which code was measured: the commit, the files changed since, and when the simulation service was built. */
export function codeVersion() {
  const git = (args: string[]) => {
    const r = spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
    return r.status === 0 ? r.stdout.trim() : null;
  };
  let builtAt: any = null;
  try {
    builtAt = statSync(join(ROOT, 'apps/simulation-service/dist/engine/simulator.js')).mtime.toISOString();
  } catch {}
  const changed = git(['status', '--porcelain']);
  return { commit: git(['rev-parse', 'HEAD']), changedFiles: changed === null ? null : changed.split('\n').filter(Boolean), simulationServiceBuiltAt: builtAt };
}
