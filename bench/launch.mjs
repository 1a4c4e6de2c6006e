#!/usr/bin/env node
// Launch-execution benchmark: `npm run bench:launch` (which installs, builds and migrates first).
//
//   1. a local hardhat@2 node (chain id 31337, Prague, base fee 0, no automine, FIFO mempool)
//      with WETH9, UniswapV2Factory and UniswapV2Router02 deployed
//   2. the product: gateway, intent service (watching the chain, executing through the router,
//      submitting with eth_sendRawTransaction) and simulation service (the token probe), plus a
//      signing webhook in a process of its own (this file with --signing-webhook; signs in
//      worker threads) that answers at once
//   3. per launch: a fresh ERC20, N intents on it created through the gateway (one per wallet
//      round-robin, distinct bribes), then the launch (addLiquidityETH) mined; the bench waits
//      for the service's "launch of …" log line and for the last buy in the node's mempool,
//      checks the pending block, mines it and checks every intent `completed` through the API
//   4. BENCH_LAUNCH_RUNS launches of BENCH_LAUNCH_SMALL (100) intents and BENCH_LAUNCH_LARGE_RUNS
//      of BENCH_LAUNCH_LARGE (1000), each after BENCH_LAUNCH_WARMUP unmeasured ones
//   5. the pending scenario: the intent service restarted following the node's mempool
//      (MEMPOOL_LAUNCHES=ws over WS_URL), BENCH_LAUNCH_PENDING_RUNS launches of BENCH_LAUNCH_SMALL
//      intents whose launch transaction is sent and left pending: the buys must be in the mempool
//      right behind it, and one mined block must hold the launch followed by every buy
// The figure: the launch seen by the service (its block; in the pending scenario, its transaction
// announced) → last buy handed to the node (the service's own log line). Own database (ti_bench_<pid>_<random>, dropped at the end), own nats-server, own
// node. Prints a table on stdout and writes bench/results/launch.json. See bench/README.md.
import { spawnSync } from 'node:child_process';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { getBytes, HDNodeWallet, hexlify, Interface, Signature, Transaction, Wallet } from 'ethers';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SELF = fileURLToPath(import.meta.url);
const MNEMONIC = 'test test test test test test test test test test test junk';

// ================================================================ the signing webhook
//
// Runs as `node bench/launch.mjs --signing-webhook` (a child of the bench, so its CPU never
// shares the bench's event loop). The main thread takes the HTTP requests, checks their HMAC
// and parses them; worker threads (BENCH_SIGNER_THREADS, 0 = the main thread) sign. Keys come
// in BENCH_SIGNER_KEYS (comma-separated, hardhat's development keys), the tenant's secret in
// BENCH_SIGNER_SECRET. GET /__stats answers what each request took since the last call and
// starts over.

/**
 * (tx) → the raw signed transaction: exactly the fields sent, signed by `tx.from`'s key, with
 * libsecp256k1 (the `secp256k1` package's native binding, ~10× faster than ethers' JS curve), as
 * a signer that "answers at once" would.
 */
function makeSigner(keys) {
  const secp256k1 = createRequire(import.meta.url)('secp256k1');
  const byAddress = new Map();
  for (const key of keys) {
    const wallet = new Wallet(key);
    const secret = getBytes(wallet.privateKey);
    byAddress.set(wallet.address.toLowerCase(), {
      sign: (digest) => {
        const { signature, recid } = secp256k1.ecdsaSign(getBytes(digest), secret);
        return Signature.from({ r: hexlify(signature.subarray(0, 32)), s: hexlify(signature.subarray(32)), yParity: recid });
      },
    });
  }
  return (tx) => {
    const key = byAddress.get(String(tx.from).toLowerCase());
    if (!key) throw new Error(`no key for ${tx.from}`);
    const t = Transaction.from({
      type: 2,
      chainId: BigInt(tx.chainId),
      nonce: tx.nonce,
      to: tx.to,
      value: BigInt(tx.value),
      data: tx.data,
      gasLimit: BigInt(tx.gasLimit),
      maxFeePerGas: BigInt(tx.maxFeePerGas),
      maxPriorityFeePerGas: BigInt(tx.maxPriorityFeePerGas),
      accessList: [],
    });
    t.signature = key.sign(t.unsignedHash);
    return t.serialized;
  };
}

function signerThreadMain() {
  const sign = makeSigner(workerData.keys);
  parentPort.on('message', ({ id, txs }) => {
    const t0 = performance.now();
    try {
      const raws = txs.map(sign);
      parentPort.postMessage({ id, raws, signMs: performance.now() - t0 });
    } catch (err) {
      parentPort.postMessage({ id, error: err.message, signMs: performance.now() - t0 });
    }
  });
}

async function signingWebhookMain() {
  const keys = (process.env.BENCH_SIGNER_KEYS ?? '').split(',').filter(Boolean);
  const secret = process.env.BENCH_SIGNER_SECRET ?? '';
  const threads = Number(process.env.BENCH_SIGNER_THREADS ?? '2');
  const port = Number(process.env.BENCH_SIGNER_PORT ?? '0');
  if (keys.length === 0 || !secret) throw new Error('BENCH_SIGNER_KEYS and BENCH_SIGNER_SECRET are required');

  // Signing: inline, or on the least busy worker thread.
  let signTxs;
  if (threads > 0) {
    const pending = new Map();
    let nextId = 0;
    const workers = Array.from({ length: threads }, () => {
      const w = new Worker(SELF, { workerData: { role: 'signer', keys } });
      const entry = { w, busy: 0 };
      w.on('message', (m) => {
        entry.busy--;
        const p = pending.get(m.id);
        pending.delete(m.id);
        if (m.error) p.reject(Object.assign(new Error(m.error), { signMs: m.signMs }));
        else p.resolve({ raws: m.raws, signMs: m.signMs });
      });
      w.on('error', (err) => {
        process.stderr.write(`signer thread failed: ${err.stack}\n`);
        process.exit(1);
      });
      return entry;
    });
    signTxs = (txs) =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        pending.set(id, { resolve, reject });
        const entry = workers.reduce((a, b) => (b.busy < a.busy ? b : a));
        entry.busy++;
        entry.w.postMessage({ id, txs });
      });
  } else {
    const sign = makeSigner(keys);
    signTxs = async (txs) => {
      const t0 = performance.now();
      return { raws: txs.map(sign), signMs: performance.now() - t0 };
    };
  }

  let records = [];
  const counters = { requests: 0, hmacFailures: 0, signErrors: 0, badRequests: 0 };
  const server = http.createServer((req, res) => {
    const arrive = Date.now();
    const t0 = performance.now();
    if (req.method === 'GET' && req.url === '/__stats') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ...counters, records }));
      records = [];
      for (const k of Object.keys(counters)) counters[k] = 0;
      return;
    }
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      counters.requests++;
      const answer = (status, body, extra = {}) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(body);
        records.push({ arrive, done: Date.now(), ms: round3(performance.now() - t0), status, ...extra });
      };
      const body = Buffer.concat(chunks).toString('utf8');
      const timestamp = String(req.headers['x-signing-timestamp'] ?? '');
      const given = String(req.headers['x-signing-signature'] ?? '');
      const expected = `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
      if (given.length !== expected.length || !timingSafeEqual(Buffer.from(given), Buffer.from(expected))) {
        counters.hmacFailures++;
        return answer(401, '{"error":"bad signature"}');
      }
      let request;
      try {
        request = JSON.parse(body);
      } catch {
        counters.badRequests++;
        return answer(400, '{"error":"not JSON"}');
      }
      const queued = performance.now();
      try {
        const { raws, signMs } = await signTxs(request.transactions ?? []);
        answer(200, JSON.stringify({ signedTransactions: raws }), { signMs: round3(signMs), waitMs: round3(performance.now() - queued - signMs), intentId: request.intentId });
      } catch (err) {
        counters.signErrors++;
        answer(500, JSON.stringify({ error: err.message }), { signMs: round3(err.signMs ?? 0) });
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  process.stdout.write(`signing webhook listening on 127.0.0.1:${server.address().port} (${keys.length} keys, ${threads} signing thread(s))\n`);
  process.on('SIGTERM', () => process.exit(0));
}

function round3(v) {
  return Math.round(v * 1000) / 1000;
}

// ================================================================ the RPC timing proxy
//
// With BENCH_RPC_TIMING=1 the services reach the node through `node bench/launch.mjs --rpc-proxy`
// (a child of its own): it forwards every request unchanged and records when it came, how long
// the node took, and which methods it carried. The client is told apart by the URL path the
// service was given (/intent, /sim). GET /__stats answers the records since the last call.

async function rpcProxyMain() {
  const upstream = new URL(process.env.BENCH_PROXY_UPSTREAM ?? '');
  const port = Number(process.env.BENCH_PROXY_PORT ?? '0');
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  let records = [];
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/__stats') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ records }));
      records = [];
      return;
    }
    const start = Date.now();
    const t0 = performance.now();
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const up = http.request(
        { host: upstream.hostname, port: upstream.port, path: '/', method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': body.length } },
        (ur) => {
          const parts = [];
          ur.on('data', (c) => parts.push(c));
          ur.on('end', () => {
            const answer = Buffer.concat(parts);
            res.writeHead(ur.statusCode ?? 502, { 'content-type': ur.headers['content-type'] ?? 'application/json' });
            res.end(answer);
            const methods = {};
            for (const m of body.toString('utf8').matchAll(/"method"\s*:\s*"([A-Za-z0-9_]+)"/g)) methods[m[1]] = (methods[m[1]] ?? 0) + 1;
            if (records.length < 200_000) records.push({ client: (req.url ?? '/').slice(1) || '-', start, end: Date.now(), ms: round3(performance.now() - t0), methods, bytes: body.length });
          });
        },
      );
      up.on('error', (err) => {
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: `proxy: ${err.message}` } }));
      });
      up.end(body);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  process.stdout.write(`rpc proxy listening on 127.0.0.1:${server.address().port} → ${upstream.href}\n`);
  process.on('SIGTERM', () => process.exit(0));
}

if (!isMainThread && workerData?.role === 'signer') {
  signerThreadMain();
} else if (process.argv[2] === '--signing-webhook') {
  await signingWebhookMain();
} else if (process.argv[2] === '--rpc-proxy') {
  await rpcProxyMain();
} else {
  await benchMain();
}

// ================================================================ the bench

async function benchMain() {
  const { bootstrapDatabase } = await import('../infra/postgres/bootstrap.mjs');
  const { withDefaults } = await import('../scripts/lib.mjs');
  const { BenchRun, cpuMeter, envInt, freePort, hostInfo, jsonRpc, log, logIssues, packageVersion: libPackageVersion, percentile, request, round, runLoad, runNodeScript, sleep, startHardhatNode, waitFor200 } = await import('./lib.mjs');

  const RESULTS = join(ROOT, 'bench', 'results', 'launch.json');
  const CHAIN_ID = 31337;
  const HARDFORK = 'prague';
  const BLOCK_GAS_LIMIT = 1_000_000_000;
  const ETH = 10n ** 18n;
  const SUPPLY = 10n ** 27n; // each launch token's supply (18 decimals: 1e9 tokens)
  const POOL_TOKENS = 10n ** 26n; // tokens into the launch pool
  const POOL_ETH = 100n * ETH; // wei into the launch pool
  const BUY_AMOUNT = 10n ** 15n; // 0.001 ETH per intent: 1,000 buys move the pool by 1 %
  const BRIBE_BASE = 1_000_000n; // intent i of a launch bids BRIBE_BASE + (N - i) wei: checked in creation order

  // ---------------------------------------------------------------- parameters

  const P = {
    small: envInt('BENCH_LAUNCH_SMALL', 100, { max: 10_000 }),
    large: envInt('BENCH_LAUNCH_LARGE', 1000, { max: 10_000 }),
    smallRuns: envInt('BENCH_LAUNCH_RUNS', 10, { min: 0, max: 1000 }),
    largeRuns: envInt('BENCH_LAUNCH_LARGE_RUNS', 5, { min: 0, max: 1000 }),
    /** Launches seen pending (MEMPOOL_LAUNCHES): of BENCH_LAUNCH_SMALL intents each. */
    pendingRuns: envInt('BENCH_LAUNCH_PENDING_RUNS', 10, { min: 0, max: 1000 }),
    /** How the intent service follows the mempool in the pending scenario: ws (eth_subscribe) or poll (a filter). */
    mempool: process.env.BENCH_MEMPOOL === 'poll' ? 'poll' : 'ws',
    warmup: envInt('BENCH_LAUNCH_WARMUP', 1, { min: 0, max: 100 }),
    wallets: envInt('BENCH_LAUNCH_WALLETS', 100, { max: 1000 }),
    signerThreads: envInt('BENCH_SIGNER_THREADS', 1, { min: 0, max: 16 }),
    createConcurrency: envInt('BENCH_CREATE_CONCURRENCY', 16, { max: 256 }),
    mempoolPollMs: envInt('BENCH_MEMPOOL_POLL_MS', 5, { max: 1000 }),
    servicePollMs: envInt('BENCH_LAUNCH_POLL_INTERVAL_MS', 20, { max: 60_000 }),
    signerTimeoutMs: envInt('BENCH_SIGNER_TIMEOUT_MS', 2000, { max: 60_000 }),
    /** How long the buys wait in the mempool before the bench mines them (a block time; 0: at once). */
    mineDelayMs: envInt('BENCH_MINE_DELAY_MS', 0, { min: 0, max: 60_000 }),
    launchTimeoutSeconds: envInt('BENCH_LAUNCH_TIMEOUT_SECONDS', 60, { max: 3600 }),
    maxSeconds: envInt('BENCH_MAX_SECONDS', 600, { max: 24 * 3600 }),
    /** The services reach the node through the timing proxy (an extra loopback hop per request). */
    rpcTiming: process.env.BENCH_RPC_TIMING === '1',
    /** The intent and simulation services run with --cpu-prof (profiles kept in a temp directory). */
    cpuProfile: process.env.BENCH_CPU_PROF === '1',
  };
  const TARGETS = { smallP50Ms: 150, smallP99Ms: 150, pendingP50Ms: 150 };

  const env = withDefaults(process.env);
  const startedAt = new Date();
  const run = new BenchRun({ name: 'launch', env, maxSeconds: P.maxSeconds, applicationName: 'bench' });
  const { tmp, children } = run;
  let dbName = null;
  let profileDir = null;
  const step = (title) => run.step(title);
  /** `node [--cpu-prof …] apps/<app>/dist/main.js` */
  const serviceArgs = (app) => {
    const main = join(ROOT, 'apps', app, 'dist/main.js');
    if (!P.cpuProfile) return [main];
    profileDir ??= mkdtempSync(join(os.tmpdir(), 'ti-bench-launch-prof-'));
    // Nest re-raises SIGTERM after its shutdown hooks, and a process killed by a signal writes no
    // profile: exit normally on SIGTERM instead (this listener runs first).
    return ['--cpu-prof', '--cpu-prof-dir', profileDir, '--cpu-prof-name', `${app}.cpuprofile`, '--import', 'data:text/javascript,process.on("SIGTERM",()=>process.exit(0))', main];
  };
  const runNode = (script, args, childEnv) => runNodeScript(ROOT, script, args, childEnv);
  const hex = (n) => `0x${BigInt(n).toString(16)}`;
  const stats = (values) => {
    const s = values.filter((v) => typeof v === 'number' && Number.isFinite(v)).sort((a, b) => a - b);
    if (s.length === 0) return { n: 0, p50: null, p99: null, max: null, min: null, mean: null };
    return {
      n: s.length,
      min: round(s[0], 2),
      p50: round(percentile(s, 50), 2),
      p99: round(percentile(s, 99), 2),
      max: round(s[s.length - 1], 2),
      mean: round(s.reduce((a, b) => a + b, 0) / s.length, 2),
    };
  };

  // ---------------------------------------------------------------- JSON-RPC to the node

  let nodeUrl = null;
  const rpc = (method, params = []) => jsonRpc(nodeUrl, method, params, 60_000);
  const packageVersion = (name) => libPackageVersion(ROOT, name);

  /** `hardhat node` from node_modules, started directly, on a free port; no automine. */
  async function startHardhat() {
    const network = {
      chainId: CHAIN_ID,
      hardfork: HARDFORK,
      initialBaseFeePerGas: 0,
      allowBlocksWithSameTimestamp: true,
      blockGasLimit: BLOCK_GAS_LIMIT,
      mining: { auto: false, interval: 0, mempool: { order: 'fifo' } },
      accounts: { mnemonic: MNEMONIC, count: P.wallets + 1 },
    };
    const node = await startHardhatNode({ root: ROOT, children, dir: join(tmp, 'hardhat'), network, readyTimeoutMs: 90_000 });
    nodeUrl = node.url;
    return node;
  }


  function artifact(path) {
    const json = JSON.parse(readFileSync(join(ROOT, 'node_modules', path), 'utf8'));
    const bytecode = json.bytecode ?? json.evm?.bytecode?.object;
    if (!bytecode) throw new Error(`${path} has no bytecode`);
    return { iface: new Interface(json.abi), bytecode: bytecode.startsWith('0x') ? bytecode : `0x${bytecode}` };
  }

  /** Sends from an unlocked account, mines it (the node does not automine) and checks the receipt. */
  async function mined(from, to, data, value = 0n) {
    const hash = await rpc('eth_sendTransaction', [{ from, ...(to ? { to } : {}), data, gas: hex(10_000_000), ...(value ? { value: hex(value) } : {}) }]);
    await rpc('evm_mine');
    const receipt = await rpc('eth_getTransactionReceipt', [hash]);
    if (!receipt || receipt.status !== '0x1') throw new Error(`setup transaction ${hash} failed: ${JSON.stringify(receipt)?.slice(0, 300)}`);
    return receipt;
  }

  // ---------------------------------------------------------------- the service's log

  /** Calls `handle(message)` for every line a child prints (a JSON log record's `message`, else the line). */
  function onLogMessages(entry, handle) {
    let buffer = '';
    const onData = (chunk) => {
      buffer += chunk.toString();
      let nl;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        let message = line;
        try {
          const parsed = JSON.parse(line);
          if (parsed && typeof parsed.message === 'string') message = parsed.message;
        } catch {}
        handle(message);
      }
    };
    entry.child.stdout.on('data', onData);
    entry.child.stderr.on('data', onData);
  }

  /**
   * Follows the intent service's stdout: the "launch of <token> …" summaries (by token, lowercase),
   * transient failures of a round ("…; retrying every round"), and intents that failed at launch.
   */
  function followServiceLog(entry) {
    const launches = new Map();
    const retries = new Map();
    const failures = [];
    const stored = new Map();
    const SUMMARY = /^launch of (0x[0-9a-fA-F]{40}) on chain (\d+): (\d+) intent\(s\), (\d+) submitted for block (\d+), (\d+) failed, (\d+) deferred, in (\d+) ms(?: \((-?\d+) ms after the launch (block|transaction) was seen\))?/;
    // The mempool watcher: a pending launch recognised (simulated) and stored, after it was announced.
    const STORED = /^pending launch of (0x[0-9a-fA-F]{40})(?:, 0x[0-9a-fA-F]{40})* on chain \d+ in (0x[0-9a-fA-F]{64}), stored ([\d.]+) ms after it was seen/;
    const RETRY = /^launch of (0x[0-9a-fA-F]{40}) on chain \d+: (.*); retrying( every round)?$/;
    onLogMessages(entry, (message) => {
      const m = SUMMARY.exec(message);
      if (m) {
        const token = m[1].toLowerCase();
        const round = {
          at: Date.now(),
          intents: Number(m[3]),
          submitted: Number(m[4]),
          targetBlock: Number(m[5]),
          failed: Number(m[6]),
          deferred: Number(m[7]),
          roundMs: Number(m[8]),
          sinceSeenMs: m[9] === undefined ? null : Number(m[9]),
          seen: m[10] ?? null,
        };
        if (!launches.has(token)) launches.set(token, []);
        launches.get(token).push(round);
        return;
      }
      const st = STORED.exec(message);
      if (st) {
        stored.set(st[1].toLowerCase(), { at: Date.now(), txHash: st[2], storedMs: Number(st[3]) });
        return;
      }
      const r = RETRY.exec(message);
      if (r) {
        const token = r[1].toLowerCase();
        if (!retries.has(token)) retries.set(token, []);
        retries.get(token).push(r[2].slice(0, 300));
        return;
      }
      if (/^intent [0-9a-f-]{36}: failed \(/.test(message) && failures.length < 50) failures.push(message.slice(0, 300));
    });
    return { launches, retries, failures, stored };
  }

  /** Follows the simulation service's request log (LOG_REQUESTS=true): when each simulation ended and what it took. */
  function followSimulationLog(entry) {
    const done = [];
    // `simulation=<id> request=<id> chain=… block=… calls=… rules=… runs=… fetches=… reads=… <outcome> <ms>ms`
    const LINE = /^simulation=\S+ request=\S+ .*?runs=(\d+) fetches=(\d+)(?: reads=\d+)? (ok|failed:\S+) ([\d.]+)ms$/;
    onLogMessages(entry, (message) => {
      const m = LINE.exec(message);
      if (m && done.length < 100_000) done.push({ at: Date.now(), runs: Number(m[1]), fetches: Number(m[2]), outcome: m[3], ms: Number(m[4]) });
    });
    return done;
  }

  /** The built apps (apps/<name>/dist/main.js). */
  function productApps() {
    const apps = readdirSync(join(ROOT, 'apps')).filter((a) => existsSync(join(ROOT, 'apps', a, 'dist/main.js'))).sort();
    for (const required of ['gateway', 'intent-service', 'simulation-service']) {
      if (!apps.includes(required)) throw new Error(`apps/${required}/dist/main.js is missing: build first (npx turbo run build)`);
    }
    return apps;
  }

  /** Which code was measured: the commit, the files changed since, and when the intent service was built. */
  function codeVersion() {
    const git = (args) => {
      const r = spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
      return r.status === 0 ? r.stdout.trim() : null;
    };
    let builtAt = null;
    try {
      builtAt = statSync(join(ROOT, 'apps/intent-service/dist/execution/executor.js')).mtime.toISOString();
    } catch {}
    const changed = git(['status', '--porcelain']);
    return { commit: git(['rev-parse', 'HEAD']), changedFiles: changed === null ? null : changed.split('\n').filter(Boolean), intentServiceBuiltAt: builtAt };
  }

  // ---------------------------------------------------------------- one launch

  /**
   * One launch of `size` intents: deploy a token, create the intents through the gateway, mine
   * the launch, time it, check the mempool and the pending block, mine the buys, check every
   * intent through the API.
   */
  async function launchOnce(ctx, size, label, mode = 'block') {
    const { dex, deployer, wallets, gatewayPort, key, db, serviceLog, webhookUrl, webhookPort, pids } = ctx;
    // `pending`: the launch transaction is left in the mempool; the service must buy right behind it.
    const pending = mode === 'pending';
    const out = { label, size, mode, errors: [], retries: [] };
    const fail = (msg) => {
      out.errors.push(msg);
      log(`  ERROR: ${msg}`);
    };

    // 1. a fresh token, approved to the router
    const token = (await mined(deployer, null, dex.erc20.bytecode + dex.erc20.iface.encodeDeploy([SUPPLY]).slice(2))).contractAddress.toLowerCase();
    await mined(deployer, token, dex.erc20.iface.encodeFunctionData('approve', [dex.router, POOL_TOKENS]));
    out.token = token;

    // 2. the intents, through the gateway; intent i: wallet i mod W, bribe BRIBE_BASE + (N - i)
    const expiry = Math.floor(Date.now() / 1000) + 3600;
    const ids = new Array(size);
    const create = await runLoad({
      port: gatewayPort,
      concurrency: P.createConcurrency,
      warmup: 0,
      total: size,
      maxMs: 120_000,
      make: (i) => ({
        method: 'POST',
        path: '/v1/intent',
        headers: { 'x-api-key': key },
        body: JSON.stringify({
          chainId: CHAIN_ID,
          wallet: wallets[i % wallets.length].address,
          tokenAddress: token,
          bribe: (BRIBE_BASE + BigInt(size - i)).toString(),
          buyAmount: BUY_AMOUNT.toString(),
          expiry,
          gasTip: '0',
          webhookUrl,
        }),
        timeoutMs: 30_000,
      }),
      expect: 201,
      onSample: (res, i) => {
        try {
          ids[i] = JSON.parse(res.body).id;
        } catch {}
      },
    });
    out.create = { seconds: create.seconds, reqPerSec: create.reqPerSec, p50Ms: create.p50Ms, errors: create.errors };
    if (create.errors > 0 || ids.some((id) => typeof id !== 'string')) {
      fail(`creating ${size} intents: ${create.errors} errors (${JSON.stringify(create.errorsByKind)}), e.g. ${create.errorSamples[0]}`);
      return out;
    }

    // 3. quiet: the outbox relay has published the `created` events, the watcher has looked the token up
    const quietUntil = Date.now() + 30_000;
    for (;;) {
      const { rows } = await db.query('SELECT count(*)::int AS n FROM intent.outbox WHERE published_at IS NULL');
      if (rows[0].n === 0) break;
      if (Date.now() > quietUntil) {
        out.outboxBacklogAtLaunch = rows[0].n;
        break;
      }
      await sleep(20);
    }
    await sleep(Math.max(100, 3 * P.servicePollMs));

    const pendingBefore = (await rpc('eth_getBlockByNumber', ['pending', false])).transactions.length;
    if (pendingBefore !== 0) fail(`${pendingBefore} transaction(s) already in the mempool before the launch`);
    await request(ctx.webhookAgent, webhookPort, { path: '/__stats' }); // start the webhook's records afresh
    if (ctx.proxyPort) await request(ctx.webhookAgent, ctx.proxyPort, { path: '/__stats' });

    // 4. the launch: addLiquidityETH, then mine it (pending: leave it in the mempool)
    const deadline = Math.floor(Date.now() / 1000) + 3600;
    const headBefore = Number(BigInt(await rpc('eth_blockNumber')));
    let meter = pending ? cpuMeter(pids) : null;
    const sendAt = Date.now();
    const addHash = await rpc('eth_sendTransaction', [
      {
        from: deployer,
        to: dex.router,
        data: dex.routerIface.encodeFunctionData('addLiquidityETH', [token, POOL_TOKENS, 0n, 0n, deployer, deadline]),
        value: hex(POOL_ETH),
        gas: hex(10_000_000),
      },
    ]);
    meter ??= cpuMeter(pids);
    const mineStart = Date.now();
    if (!pending) await rpc('evm_mine');
    // The reference time: the launch mined (block), or sent (pending).
    const mineEnd = pending ? sendAt : Date.now();
    out.launchTx = addHash;
    if (pending) {
      out.launchBlock = headBefore + 1;
    } else {
      const launchReceipt = await rpc('eth_getTransactionReceipt', [addHash]);
      if (!launchReceipt || launchReceipt.status !== '0x1') {
        fail(`the launch transaction ${addHash} failed`);
        return out;
      }
      out.launchBlock = Number(BigInt(launchReceipt.blockNumber));
    }

    // 5. the last buy (the lowest bribe: the last intent created): its hash once the service
    //    marks it submitted (the database), then the node's mempool (eth_getTransactionByHash).
    //    Cheap on purpose: on hardhat a "pending" nonce or block re-runs the whole mempool.
    const pollAgent = ctx.pollAgent;
    const lastId = ids[size - 1];
    const limit = Date.now() + P.launchTimeoutSeconds * 1000;
    let observedAt = null;
    let polls = 0;
    let lastPollSentAt = null;
    let lastHash = null;
    for (;;) {
      if (run.aborting) throw new Error('aborted');
      const sent = Date.now();
      if (lastHash === null) {
        const { rows } = await db.query('SELECT tx_hash FROM intent.intents WHERE id = $1', [lastId]);
        lastHash = rows[0]?.tx_hash ?? null;
      }
      if (lastHash !== null) {
        const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getTransactionByHash', params: [lastHash] });
        const res = await request(pollAgent, ctx.node.port, { method: 'POST', path: '/', body, timeoutMs: 30_000 });
        polls++;
        if (JSON.parse(res.body).result) {
          observedAt = Date.now();
          lastPollSentAt = sent;
          break;
        }
      }
      const rounds = serviceLog.launches.get(token);
      // The round is over and the last buy is not in: it failed or was deferred (checked below).
      if (rounds && Date.now() - rounds[0].at > 1000) break;
      if (Date.now() > limit) break;
      await sleep(P.mempoolPollMs);
    }
    out.polls = polls;
    // The service's summary line (it is written right after the submission batch is answered).
    while (!serviceLog.launches.has(token) && Date.now() < limit) await sleep(5);
    out.cpuPercentOfOneCore = meter.stop();
    const rounds = serviceLog.launches.get(token);
    out.retries = serviceLog.retries.get(token) ?? [];
    if (!rounds) {
      fail(`no "launch of ${token}" line from the intent service within ${P.launchTimeoutSeconds} s`);
      return out;
    }
    const first = rounds[0];
    out.service = first;
    const allSims = ctx.simLog.filter((x) => x.at >= mineEnd && x.at <= first.at);
    // pending: the first simulation is the launch transaction's own (recognising it); the probe follows.
    out.recognitionSimMs = pending && allSims.length > 0 ? allSims[0].ms : null;
    const sims = pending ? allSims.slice(1) : allSims;
    out.simulations = { count: sims.length, ms: sims.map((x) => x.ms), runs: sims.map((x) => x.runs), fetches: sims.map((x) => x.fetches), totalMs: round(sims.reduce((a, x) => a + x.ms, 0), 1), failed: sims.filter((x) => x.outcome !== 'ok').length };
    out.sinceSeenMs = first.sinceSeenMs;
    out.roundMs = first.roundMs;
    out.mineStart = mineStart;
    out.mineMs = mineEnd - mineStart;
    out.observedMs = observedAt === null ? null : observedAt - mineEnd;
    out.observedPollSentMs = lastPollSentAt === null ? null : lastPollSentAt - mineEnd;
    if (observedAt === null) fail(`the last buy (intent ${lastId}, tx ${lastHash ?? 'never marked submitted'}) was not seen in the mempool`);
    let seenAt = null;
    if (pending) {
      // The launch as the mempool watcher stored it: when its transaction was announced, and how
      // long recognising it took (simulated on the head through the simulation service).
      const { rows: launchRows } = await db.query('SELECT seen_at, tx_hash FROM intent.pending_launches WHERE chain_id = $1 AND token = $2', [CHAIN_ID, token]);
      seenAt = launchRows[0]?.seen_at ? launchRows[0].seen_at.getTime() : null;
      out.detectionMs = seenAt === null ? null : seenAt - mineEnd;
      out.storedMs = serviceLog.stored.get(token)?.storedMs ?? null;
      if (launchRows[0]?.tx_hash !== addHash) fail(`the service stored pending launch ${launchRows[0]?.tx_hash ?? 'none'}, the launch is ${addHash}`);
      if (first.seen !== 'transaction') fail(`the round acted on the launch ${first.seen ?? 'unknown'}, not on its pending transaction`);
    } else {
      const { rows: launchRows } = await db.query('SELECT seen_at, detected_at, block_number::text FROM intent.launches WHERE chain_id = $1 AND token = $2', [CHAIN_ID, token]);
      seenAt = launchRows[0]?.seen_at ? launchRows[0].seen_at.getTime() : null;
      out.detectionMs = seenAt === null ? null : seenAt - mineEnd;
      out.detectedBlock = launchRows[0] ? Number(launchRows[0].block_number) : null;
      if (out.detectedBlock !== out.launchBlock) fail(`the service recorded the launch in block ${out.detectedBlock}, it was mined in ${out.launchBlock}`);
    }

    // 6. the webhook's side of the round
    const ws = JSON.parse((await request(ctx.webhookAgent, webhookPort, { path: '/__stats' })).body);
    const recs = ws.records.filter((r) => r.status === 200);
    out.webhook = {
      requests: ws.requests,
      hmacFailures: ws.hmacFailures,
      signErrors: ws.signErrors,
      handlerMs: stats(recs.map((r) => r.ms)),
      signMs: stats(recs.map((r) => r.signMs)),
      queueMs: stats(recs.map((r) => r.waitMs)),
      signCpuMsTotal: round(recs.reduce((a, r) => a + (r.signMs ?? 0), 0), 1),
      firstArrive: recs.length ? Math.min(...recs.map((r) => r.arrive)) : null,
      lastDone: recs.length ? Math.max(...recs.map((r) => r.done)) : null,
    };
    if (ws.hmacFailures > 0) fail(`${ws.hmacFailures} signing request(s) failed the webhook's HMAC check`);
    if (ws.requests !== size) fail(`the webhook got ${ws.requests} signing requests for ${size} intents`);
    if (seenAt !== null && out.webhook.firstArrive !== null && out.sinceSeenMs !== null) {
      const doneAt = seenAt + out.sinceSeenMs;
      out.phases = {
        seenToFirstSignRequestMs: out.webhook.firstArrive - seenAt,
        // pending: the transaction announced → recognised as a launch and stored (the detect step).
        storedMs: out.storedMs ?? null,
        // The simulation service's own start and end of the probe (its log line's time minus the duration).
        probeStartMs: sims.length ? round(sims[0].at - sims[0].ms - seenAt, 1) : null,
        probeEndMs: sims.length ? sims[sims.length - 1].at - seenAt : null,
        signingWindowMs: out.webhook.lastDone - out.webhook.firstArrive,
        lastSignatureToSubmittedMs: doneAt - out.webhook.lastDone,
      };
    }

    // 7. chain side: every buy marked submitted, in the pending block
    const { rows: phases } = await db.query(
      `SELECT status, coalesce(phase, '') AS phase, count(*)::int AS n FROM intent.intents WHERE id = ANY($1::uuid[]) GROUP BY 1, 2`,
      [ids],
    );
    out.rowsAfterRound = Object.fromEntries(phases.map((r) => [`${r.status}${r.phase ? `/${r.phase}` : ''}`, r.n]));
    const submittedRows = phases.filter((r) => r.status === 'pending' && r.phase === 'submitted').reduce((a, r) => a + r.n, 0);
    const t0 = performance.now();
    const pendingBlock = await rpc('eth_getBlockByNumber', ['pending', false]);
    out.pendingBlockMs = round(performance.now() - t0, 1);
    out.pendingBlockTxs = pendingBlock.transactions.length;
    if (first.submitted !== size || first.failed !== 0 || first.deferred !== 0) fail(`round: ${first.submitted} submitted, ${first.failed} failed, ${first.deferred} deferred of ${size}`);
    if (submittedRows !== first.submitted) fail(`${submittedRows} intents marked submitted in the database, the log says ${first.submitted}`);
    const expectedTxs = first.submitted + (pending ? 1 : 0); // pending: the launch, then the buys
    if (out.pendingBlockTxs !== expectedTxs) fail(`the pending block holds ${out.pendingBlockTxs} transactions, ${first.submitted} were submitted${pending ? ' behind the launch' : ''}`);

    // 8. mine the buys (after BENCH_MINE_DELAY_MS: a block time); every intent must end `completed`
    if (P.mineDelayMs > 0) await sleep(Math.max(0, seenAt + first.sinceSeenMs + P.mineDelayMs - Date.now()));
    const buysStart = performance.now();
    const buysMineAt = Date.now();
    await rpc('evm_mine');
    out.mineBuysMs = round(performance.now() - buysStart, 1);
    const buysBlock = await rpc('eth_getBlockByNumber', ['latest', false]);
    out.buysBlock = { number: Number(BigInt(buysBlock.number)), txs: buysBlock.transactions.length, gasUsed: Number(BigInt(buysBlock.gasUsed)) };
    if (out.buysBlock.number !== first.targetBlock) fail(`the buys were mined in block ${out.buysBlock.number}, the target was ${first.targetBlock}`);
    if (out.buysBlock.txs !== expectedTxs) fail(`the buys' block holds ${out.buysBlock.txs} transactions, ${first.submitted} were submitted${pending ? ' behind the launch' : ''}`);
    if (pending) {
      // The launch block itself: the launch first, then every buy.
      if (buysBlock.transactions[0] !== addHash) fail(`the block's first transaction is ${buysBlock.transactions[0]}, not the launch ${addHash}`);
      if (out.buysBlock.number !== out.launchBlock) fail(`the launch was expected in block ${out.launchBlock}, the buys were mined in ${out.buysBlock.number}`);
      const launchReceipt = await rpc('eth_getTransactionReceipt', [addHash]);
      if (!launchReceipt || launchReceipt.status !== '0x1') fail(`the launch transaction ${addHash} failed`);
    }
    const settleStart = performance.now();
    const settleLimit = Date.now() + P.launchTimeoutSeconds * 1000;
    // Buys of later rounds (intents deferred behind a wallet's failed signing) wait for blocks of
    // their own: mine one whenever a submitted buy targets a block after the head.
    out.extraBlocks = 0;
    let head = out.buysBlock.number;
    for (;;) {
      const { rows } = await db.query(
        `SELECT count(*)::int AS n, count(*) FILTER (WHERE phase = 'submitted' AND target_block > $2)::int AS later
         FROM intent.intents WHERE id = ANY($1::uuid[]) AND status = 'pending'`,
        [ids, head],
      );
      if (rows[0].n === 0) break;
      if (Date.now() > settleLimit) {
        fail(`${rows[0].n} intents still pending ${P.launchTimeoutSeconds} s after the buys were mined`);
        break;
      }
      if (rows[0].later > 0 && out.extraBlocks < 10) {
        await rpc('evm_mine');
        head = Number(BigInt(await rpc('eth_blockNumber')));
        out.extraBlocks++;
      }
      await sleep(20);
    }
    out.outcomesRecordedMs = round(performance.now() - settleStart, 1);
    const byStatus = {};
    const notCompleted = [];
    const verify = await runLoad({
      port: gatewayPort,
      concurrency: P.createConcurrency,
      warmup: 0,
      total: size,
      maxMs: 120_000,
      make: (i) => ({ path: `/v1/intent/${ids[i]}`, headers: { 'x-api-key': key }, timeoutMs: 30_000 }),
      expect: 200,
      check: (res) => {
        const body = JSON.parse(res.body);
        const k = `${body.status}${body.statusReason ? ` (${body.statusReason})` : ''}`;
        byStatus[k] = (byStatus[k] ?? 0) + 1;
        if (body.status !== 'completed') {
          notCompleted.push({ id: body.id, status: k, txHash: body.txHash ?? null });
          return `intent ${body.id}: ${k}`;
        }
        if (!/^0x[0-9a-f]{64}$/.test(body.txHash ?? '')) return `intent ${body.id}: completed without a txHash`;
        return null;
      },
    });
    out.outcomes = byStatus;
    out.completed = byStatus.completed ?? 0;
    if (verify.errors > 0) fail(`${verify.errors} of ${size} intents not completed through the API: ${JSON.stringify(byStatus)}, e.g. ${verify.errorSamples[0]}`);
    if (notCompleted.length > 0) {
      // What the chain says about them: a buy mined with status 1 should never end as anything but `completed`.
      const hashes = notCompleted.filter((n) => n.txHash);
      const receipts = hashes.length ? await Promise.all(hashes.map((n) => rpc('eth_getTransactionReceipt', [n.txHash]))) : [];
      const minedOk = {};
      hashes.forEach((n, i) => {
        const r = receipts[i];
        if (r && r.status === '0x1') minedOk[n.status] = (minedOk[n.status] ?? 0) + 1;
      });
      out.notCompleted = { byStatus: Object.fromEntries(Object.entries(byStatus).filter(([k]) => k !== 'completed')), boughtOnChainAnyway: minedOk, sample: notCompleted.slice(0, 3) };
      const wrong = Object.values(minedOk).reduce((a, b) => a + b, 0);
      if (wrong > 0) fail(`${wrong} of them were bought on chain all the same (receipt status 1 in block ${out.buysBlock.number}): recorded ${JSON.stringify(minedOk)}`);
    }

    // 9. the node's side, through the timing proxy (BENCH_RPC_TIMING=1)
    if (ctx.proxyPort) out.rpc = rpcTimings(JSON.parse((await request(ctx.webhookAgent, ctx.proxyPort, { path: '/__stats' })).body).records, seenAt, seenAt + first.sinceSeenMs, buysMineAt, first.submitted);
    const bits = [
      `service: ${first.sinceSeenMs} ms after seen (round ${first.roundMs} ms${pending ? `, launch recognised ${out.storedMs ?? '–'} ms after announced` : ''})`,
      `mine → last buy in mempool ${out.observedMs ?? '–'} ms`,
      `detection ${out.detectionMs ?? '–'} ms`,
      out.phases ? `seen → 1st sign ${out.phases.seenToFirstSignRequestMs} (probe ${out.simulations.ms.join(' + ')} ms, miss fetches ${out.simulations.fetches.join(' + ')}), signing ${out.phases.signingWindowMs}, → submitted ${out.phases.lastSignatureToSubmittedMs} ms` : null,
      out.rpc ? `node: state reads ${out.rpc.stateReadsMs ?? '–'}, submission ${out.rpc.submissionMs ?? '–'} ms, ${out.rpc.whileWaiting.sendRawTransactionCalls} resends in ${out.rpc.whileWaiting.ms} ms` : null,
      `webhook p50 ${out.webhook.handlerMs.p50} ms`,
      `${out.completed}/${size} completed`,
    ].filter(Boolean);
    log(`  ${label}: ${bits.join('; ')}${out.errors.length ? `; ${out.errors.length} error(s)` : ''}`);
    return out;
  }

  /**
   * The timing proxy's records of one launch: the intent service's requests on the measured path
   * (seen → done), the simulation service's, and what the executor sent while the buys waited
   * for the next block (done → the bench's evm_mine).
   */
  function rpcTimings(records, seenAt, doneAt, buysMineAt, submitted) {
    const label = (r) =>
      Object.entries(r.methods)
        .map(([m, n]) => (n > 1 ? `${n}×${m}` : m))
        .join(' + ');
    const intent = records.filter((r) => r.client === 'intent');
    const onPath = intent.filter((r) => r.end >= seenAt && r.start <= doneAt + 1);
    const sim = records.filter((r) => r.client === 'sim' && r.end >= seenAt && r.start <= doneAt + 1);
    const stateReads = onPath.find((r) => r.methods.eth_getBalance > 0);
    const submission = onPath.filter((r) => r.methods.eth_sendRawTransaction > 0).pop();
    const waiting = intent.filter((r) => r.start > doneAt + 1 && r.start < buysMineAt);
    const calls = (list, m) => list.reduce((a, r) => a + (r.methods[m] ?? 0), 0);
    return {
      onPath: onPath.map((r) => ({ atMs: r.start - seenAt, ms: r.ms, calls: label(r), bytes: r.bytes })),
      onPathNodeMs: round(onPath.reduce((a, r) => a + r.ms, 0), 1),
      stateReadsMs: stateReads ? stateReads.ms : null,
      stateReadsCalls: stateReads ? label(stateReads) : null,
      submissionMs: submission ? submission.ms : null,
      submissionCalls: submission ? submission.methods.eth_sendRawTransaction : null,
      simulationService: { requests: sim.length, calls: sim.reduce((a, r) => a + Object.values(r.methods).reduce((x, y) => x + y, 0), 0), nodeMs: round(sim.reduce((a, r) => a + r.ms, 0), 1) },
      whileWaiting: {
        ms: buysMineAt - doneAt,
        requests: waiting.length,
        sendRawTransactionCalls: calls(waiting, 'eth_sendRawTransaction'),
        resendsPerBuy: submitted ? round(calls(waiting, 'eth_sendRawTransaction') / submitted, 1) : null,
        getTransactionReceiptCalls: calls(waiting, 'eth_getTransactionReceipt'),
        getTransactionCountCalls: calls(waiting, 'eth_getTransactionCount'),
        nodeMs: round(waiting.reduce((a, r) => a + r.ms, 0), 1),
      },
    };
  }

  // ---------------------------------------------------------------- summary and report

  function summarize(size, runs, mode = 'block') {
    const ok = runs.filter((r) => r.errors.length === 0);
    const cpu = {};
    const box = [];
    for (const r of runs) {
      const { machine, ...procs } = r.cpuPercentOfOneCore ?? {};
      for (const [k, v] of Object.entries(procs)) {
        if (typeof v === 'number') (cpu[k] ??= []).push(v);
      }
      if (machine) {
        const ours = Object.values(procs).reduce((a, v) => a + (v ?? 0), 0);
        box.push({ busy: machine.busyPercentOfAllCores, others: Math.max(0, machine.busyPercentOfAllCores * machine.cores - ours) });
      }
    }
    const mean = (v) => (v.length ? round(v.reduce((a, b) => a + b, 0) / v.length, 0) : null);
    const withRpc = runs.filter((r) => r.rpc);
    return {
      size,
      mode,
      runs: runs.length,
      runsWithErrors: runs.length - ok.length,
      sinceSeenMs: stats(runs.map((r) => r.sinceSeenMs)),
      storedMs: stats(runs.map((r) => r.storedMs)),
      recognitionSimMs: stats(runs.map((r) => r.recognitionSimMs)),
      roundMs: stats(runs.map((r) => r.roundMs)),
      mineToLastBuyInMempoolMs: stats(runs.map((r) => r.observedMs)),
      detectionMs: stats(runs.map((r) => r.detectionMs)),
      seenToFirstSignRequestMs: stats(runs.map((r) => r.phases?.seenToFirstSignRequestMs)),
      probeMs: stats(runs.map((r) => r.simulations?.totalMs)),
      probeStartMs: stats(runs.map((r) => r.phases?.probeStartMs)),
      probeEndToFirstSignRequestMs: stats(runs.map((r) => (r.phases?.probeEndMs == null ? null : r.phases.seenToFirstSignRequestMs - r.phases.probeEndMs))),
      signingWindowMs: stats(runs.map((r) => r.phases?.signingWindowMs)),
      lastSignatureToSubmittedMs: stats(runs.map((r) => r.phases?.lastSignatureToSubmittedMs)),
      webhookHandlerMs: stats(runs.map((r) => r.webhook?.handlerMs.p50)),
      webhookHandlerP99Ms: stats(runs.map((r) => r.webhook?.handlerMs.p99)),
      webhookSignMsP50: stats(runs.map((r) => r.webhook?.signMs.p50)),
      webhookSignCpuMsPerLaunch: stats(runs.map((r) => r.webhook?.signCpuMsTotal)),
      pendingBlockMs: stats(runs.map((r) => r.pendingBlockMs)),
      mineBuysMs: stats(runs.map((r) => r.mineBuysMs)),
      outcomesRecordedMs: stats(runs.map((r) => r.outcomesRecordedMs)),
      submitted: runs.reduce((a, r) => a + (r.service?.submitted ?? 0), 0),
      failed: runs.reduce((a, r) => a + (r.service?.failed ?? 0), 0),
      deferred: runs.reduce((a, r) => a + (r.service?.deferred ?? 0), 0),
      completed: runs.reduce((a, r) => a + (r.completed ?? 0), 0),
      intents: runs.length * size,
      retries: runs.reduce((a, r) => a + r.retries.length, 0),
      cpuPercentOfOneCoreMean: Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, mean(v)])),
      wholeBoxBusyPercentMean: mean(box.map((b) => b.busy)),
      othersPercentOfOneCoreMean: mean(box.map((b) => b.others)),
      rpc: withRpc.length
        ? {
            stateReadsMs: stats(withRpc.map((r) => r.rpc.stateReadsMs)),
            submissionMs: stats(withRpc.map((r) => r.rpc.submissionMs)),
            onPathNodeMs: stats(withRpc.map((r) => r.rpc.onPathNodeMs)),
            simulationNodeMs: stats(withRpc.map((r) => r.rpc.simulationService.nodeMs)),
            simulationRoundTrips: stats(withRpc.map((r) => r.rpc.simulationService.requests)),
            waitingMs: stats(withRpc.map((r) => r.rpc.whileWaiting.ms)),
            resendsPerBuy: stats(withRpc.map((r) => r.rpc.whileWaiting.resendsPerBuy)),
            waitingNodeMs: stats(withRpc.map((r) => r.rpc.whileWaiting.nodeMs)),
          }
        : null,
      boughtButNotCompleted: runs.reduce((a, r) => a + Object.values(r.notCompleted?.boughtOnChainAnyway ?? {}).reduce((x, y) => x + y, 0), 0),
      notCompletedByStatus: runs.reduce((acc, r) => {
        for (const [k, v] of Object.entries(r.notCompleted?.byStatus ?? {})) acc[k] = (acc[k] ?? 0) + v;
        return acc;
      }, {}),
    };
  }

  function table(rows, headers) {
    const cells = [headers, ...rows].map((r) => r.map((c) => (c === null || c === undefined ? '–' : String(c))));
    const widths = headers.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
    const line = (r) => r.map((c, i) => (i > 0 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ');
    return [line(cells[0]), widths.map((w) => '─'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
  }

  function report(results, totalSeconds, machine) {
    const S = results.summary;
    const verdict = (ok) => (ok ? 'MET' : 'MISSED');
    const rows = [];
    const add = (label, pick, unit = '') => {
      const cells = [label];
      for (const s of S) {
        const v = pick(s);
        cells.push(v ? `${v.p50 ?? '–'} / ${v.p99 ?? '–'} / ${v.max ?? '–'}${unit}` : '–');
      }
      rows.push(cells);
    };
    add('seen → last buy submitted (service log) *', (s) => s.sinceSeenMs);
    if (S.some((s) => s.mode === 'pending')) {
      add('  pending: announced → recognised, stored (detect)', (s) => (s.mode === 'pending' ? s.storedMs : null));
      add('    of which its simulation (service time)', (s) => (s.mode === 'pending' ? s.recognitionSimMs : null));
    }
    add('  claim → last buy submitted (service log)', (s) => s.roundMs);
    add('  seen → first signing request', (s) => s.seenToFirstSignRequestMs);
    add('    seen → the probe starts (simulation service)', (s) => s.probeStartMs);
    add('    the token probe (2 simulations, service time)', (s) => s.probeMs);
    add('    probe answered → first signing request', (s) => s.probeEndToFirstSignRequestMs);
    add('  first request → last signature (webhook)', (s) => s.signingWindowMs);
    add('  last signature → submitted', (s) => s.lastSignatureToSubmittedMs);
    if (S.some((s) => s.rpc)) {
      add('  node: wallets\' nonces + balances batch **', (s) => s.rpc?.stateReadsMs);
      add('  node: last eth_sendRawTransaction **', (s) => s.rpc?.submissionMs);
      add('  node: all intent-service requests **', (s) => s.rpc?.onPathNodeMs);
      add('  node: the simulation service\'s reads **', (s) => s.rpc?.simulationNodeMs);
    }
    add('launch mined (pending: sent) → seen by the service', (s) => s.detectionMs);
    add('launch mined (pending: sent) → last buy in the mempool (bench)', (s) => s.mineToLastBuyInMempoolMs);
    add('webhook per request, p50 of each launch', (s) => s.webhookHandlerMs);
    add('webhook per request, p99 of each launch', (s) => s.webhookHandlerP99Ms);
    add('  of which signing, p50 of each launch', (s) => s.webhookSignMsP50);
    add('webhook signing CPU per launch', (s) => s.webhookSignCpuMsPerLaunch);
    add('pending block of the buys (eth_getBlockByNumber)', (s) => s.pendingBlockMs);
    add('evm_mine of the buys', (s) => s.mineBuysMs);
    add('buys mined → all outcomes recorded', (s) => s.outcomesRecordedMs);
    const headers = ['ms, p50 / p99 / max over launches', ...S.map((s) => `${s.mode}: ${s.size} intents × ${s.runs}`)];
    const counts = ['intents: submitted / failed / deferred / completed', ...S.map((s) => `${s.submitted} / ${s.failed} / ${s.deferred} / ${s.completed} of ${s.intents}`)];
    const small = S.find((s) => s.mode === 'block' && s.size === P.small && s.runs > 0) ?? null;
    const pendingSmall = S.find((s) => s.mode === 'pending' && s.runs > 0) ?? null;
    const targets = {
      smallP50: { ms: small?.sinceSeenMs.p50 ?? null, target: `<= ${TARGETS.smallP50Ms} ms`, met: small !== null && small.sinceSeenMs.p50 !== null && small.sinceSeenMs.p50 <= TARGETS.smallP50Ms },
      smallP99: { ms: small?.sinceSeenMs.p99 ?? null, target: `<= ${TARGETS.smallP99Ms} ms`, met: small !== null && small.sinceSeenMs.p99 !== null && small.sinceSeenMs.p99 <= TARGETS.smallP99Ms },
      ...(pendingSmall
        ? {
            pendingP50: {
              ms: pendingSmall.sinceSeenMs.p50,
              target: `<= ${TARGETS.pendingP50Ms} ms (aim 50)`,
              met: pendingSmall.sinceSeenMs.p50 !== null && pendingSmall.sinceSeenMs.p50 <= TARGETS.pendingP50Ms,
            },
          }
        : {}),
    };
    const errors = results.runs.reduce((a, r) => a + r.errors.length, 0);
    const lines = [];
    lines.push('');
    lines.push(`Launch execution benchmark — ${startedAt.toISOString()} — ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGiB} GiB, Node ${machine.node}`);
    lines.push(`chain: ${machine.chainNode.client} (hardhat ${machine.chainNode.hardhat}), chain id ${CHAIN_ID}, ${HARDFORK}, no automine; ${P.wallets} wallets; signing webhook: own process, ${P.signerThreads} signing thread(s)`);
    lines.push(`service: LAUNCH_POLL_INTERVAL_MS=${P.servicePollMs}, SIGNER_TIMEOUT_MS=${P.signerTimeoutMs}, eth_sendRawTransaction; warm-up launches per size: ${P.warmup} (not counted)`);
    if (pendingSmall) lines.push(`pending scenario: the intent service restarted with MEMPOOL_LAUNCHES=${P.mempool}; the launch transaction is sent and left pending, one evm_mine then takes the launch and every buy`);
    lines.push('');
    lines.push(table([...rows, counts], headers));
    lines.push('');
    lines.push('* the figure: from the moment the intent service saw the launch block (its watcher read the head; pending: the node announced');
    lines.push('  the launch transaction, so recognising it is inside the figure) to the answer of its');
    lines.push('  eth_sendRawTransaction of the last buy (sent one after the other, in order), as the service logs it. The webhook answers at once, but its');
    lines.push('  signing (libsecp256k1, in its own process on the same cores) is on that path: see the webhook rows.');
    lines.push('  "launch mined → seen": seen_at recorded by the service minus the end of the bench\'s evm_mine (same clock); it depends on');
    lines.push(`  the service's poll interval (${P.servicePollMs} ms). "→ last buy in the mempool": the bench polls every ${P.mempoolPollMs} ms the`);
    lines.push('  mempool for the last buy (its hash from the database, then eth_getTransactionByHash), so it includes detection and the');
    lines.push('  poll\'s granularity.');
    if (S.some((s) => s.rpc)) {
      lines.push('** BENCH_RPC_TIMING=1: the services reached the node through a timing proxy (one more loopback hop per request); node');
      lines.push('   time = the proxy\'s request → answer. "all intent-service requests" sums those overlapping seen → submitted.');
    }
    lines.push('');
    if (small) {
      lines.push(`${small.size} intents, seen → last buy submitted: p50 ${small.sinceSeenMs.p50} ms (target <= ${TARGETS.smallP50Ms} ms): ${verdict(targets.smallP50.met)}; p99 ${small.sinceSeenMs.p99} ms (target <= ${TARGETS.smallP99Ms} ms): ${verdict(targets.smallP99.met)}${small.runs < 100 ? `  (over ${small.runs} launches p99 is the slowest one)` : ''}`);
    }
    if (pendingSmall) {
      lines.push(
        `pending launch, ${pendingSmall.size} intents, seen → last buy submitted: p50 ${pendingSmall.sinceSeenMs.p50} ms (target <= ${TARGETS.pendingP50Ms} ms, aim 50): ${verdict(targets.pendingP50.met)}; ` +
          `detect ${pendingSmall.storedMs.p50}, probe ${pendingSmall.probeMs.p50}, signing ${pendingSmall.signingWindowMs.p50}, last signature → submitted ${pendingSmall.lastSignatureToSubmittedMs.p50} ms (p50s)`,
      );
    }
    for (const s of S) {
      const perRun = results.runs.filter((r) => r.size === s.size && r.mode === s.mode && !r.warmup).map((r) => r.sinceSeenMs ?? '–');
      lines.push(`${s.mode}: ${s.size} intents, seen → submitted per launch (ms): ${perRun.join(', ')}`);
    }
    for (const s of S) {
      lines.push(
        `CPU, % of one core, launch mined → service's summary line, ${s.size} intents (mean over launches): ${Object.entries(s.cpuPercentOfOneCoreMean).map(([k, v]) => `${k} ${v}`).join(', ')}; ` +
          `whole box ${s.wholeBoxBusyPercentMean ?? '?'}% busy (≈ ${s.othersPercentOfOneCoreMean ?? '?'}% of a core not accounted to these)`,
      );
    }
    for (const s of S) {
      if (s.rpc) {
        lines.push(
          `${s.size} intents: while the buys waited for the next block (${s.rpc.waitingMs.p50} ms p50), the executor sent each again ${s.rpc.resendsPerBuy.p50} times (p50; max ${s.rpc.resendsPerBuy.max}), ` +
            `${s.rpc.waitingNodeMs.p50} ms of node time; the simulation service made ${s.rpc.simulationRoundTrips.p50} round trips to the node per launch (p50)`,
        );
      }
    }
    for (const s of S) {
      if (Object.keys(s.notCompletedByStatus).length > 0) {
        lines.push(`${s.size} intents: not completed ${JSON.stringify(s.notCompletedByStatus)}; of these, ${s.boughtButNotCompleted} bought on chain all the same (receipt status 1)`);
      }
    }
    const retries = results.runs.filter((r) => r.retries.length > 0);
    if (retries.length) lines.push(`rounds retried after a transient failure: ${retries.map((r) => `${r.label}: ${r.retries[0]}`).join(' | ')}`);
    const issues = Object.entries(results.childLogs)
      .filter(([, v]) => v.warn + v.error > 0)
      .map(([k, v]) => `${k} ${v.error} error / ${v.warn} warn`);
    if (profileDir) lines.push(`CPU profiles of the intent and simulation services: ${profileDir}`);
    lines.push(`child logs: ${issues.length ? issues.join(', ') + ' (samples in the JSON)' : 'no warnings or errors'}`);
    if (errors > 0) {
      lines.push(`ERRORS: ${errors}:`);
      for (const r of results.runs) for (const e of r.errors) lines.push(`  ${r.label}: ${e}`);
    }
    lines.push(`total ${round(totalSeconds, 1)} s`);
    return { text: lines.join('\n'), targets, errors };
  }

  // ---------------------------------------------------------------- main

  async function main() {
    const results = { runs: [], summary: [] };
    await run.dropLeftovers();

    // ---- the chain
    step(`starting hardhat node (chain ${CHAIN_ID}, ${P.wallets + 1} accounts, no automine)`);
    const node = await startHardhat();
    log(`  ${node.version} at ${node.url} (pid ${node.pid})`);
    const accounts = await rpc('eth_accounts');
    const deployer = accounts[0].toLowerCase();
    const parent = HDNodeWallet.fromPhrase(MNEMONIC, undefined, "m/44'/60'/0'/0");
    const wallets = Array.from({ length: P.wallets }, (_, i) => parent.deriveChild(i + 1));
    for (let i = 0; i < Math.min(3, wallets.length); i++) {
      if (wallets[i].address.toLowerCase() !== accounts[i + 1].toLowerCase()) throw new Error(`derived wallet ${i + 1} ${wallets[i].address} is not the node's account ${accounts[i + 1]}`);
    }
    step('deploying WETH9, UniswapV2Factory, UniswapV2Router02');
    const erc20 = artifact('@uniswap/v2-core/build/ERC20.json');
    const weth9 = artifact('@uniswap/v2-periphery/build/WETH9.json');
    const factoryArt = artifact('@uniswap/v2-core/build/UniswapV2Factory.json');
    const routerArt = artifact('@uniswap/v2-periphery/build/UniswapV2Router02.json');
    const create = async (art, args) => (await mined(deployer, null, art.bytecode + art.iface.encodeDeploy(args).slice(2))).contractAddress.toLowerCase();
    const weth = await create(weth9, []);
    const factory = await create(factoryArt, [deployer]);
    const router = await create(routerArt, [factory, weth]);
    const dex = { erc20, weth, factory, router, routerIface: routerArt.iface };
    log(`  WETH9 ${weth}, factory ${factory}, router ${router}`);

    // ---- NATS, database, services
    step('starting NATS');
    const nats = await run.startNats();
    log(`  NATS ${nats.private ? `private nats-server at ${nats.url}` : `shared at ${nats.url}`}`);
    dbName = `ti_bench_${process.pid}_${randomBytes(4).toString('hex')}`;
    step(`creating database ${dbName}`);
    run.useDatabase(dbName);
    await bootstrapDatabase({ env, database: dbName });
    // No chain settings of the caller's leak into the services: the bench sets its own.
    const cleanEnv = Object.fromEntries(Object.entries(env).filter(([k]) => !/^(RPC_URL|HARDFORK|DEX_FACTORY|DEX_ROUTER|WRAPPED_NATIVE|STABLE_PAIR|DEV_SIGNER_KEYS|RELAY_URLS)_\d+$/.test(k)));
    const baseEnv = { ...cleanEnv, PGDATABASE: dbName, NATS_URL: nats.url, LOG_FORMAT: 'json', NO_COLOR: '1' };
    for (const app of productApps().filter((a) => existsSync(join(ROOT, 'apps', a, 'dist/database/migrate.js')))) {
      log(`  ${runNode(`apps/${app}/dist/database/migrate.js`, [], baseEnv).trim()}`);
    }
    const key = runNode('apps/gateway/dist/cli/apikey.js', ['create', '--name', 'bench', '--scopes', 'intents:read,intents:write'], baseEnv).trim();
    if (!/^ti_[A-Za-z0-9_-]{43}$/.test(key)) throw new Error(`apikey create printed something unexpected: ${key.slice(0, 80)}`);
    const db = run.pool(dbName, 2);

    // BENCH_RPC_TIMING=1: both services reach the node through the timing proxy (its own process).
    let proxyPort = null;
    if (P.rpcTiming) {
      proxyPort = await freePort();
      step(`starting the RPC timing proxy on port ${proxyPort}`);
      await children.start('rpc-proxy', process.execPath, [SELF, '--rpc-proxy'], {
        cwd: ROOT,
        env: { ...process.env, BENCH_PROXY_UPSTREAM: node.url, BENCH_PROXY_PORT: String(proxyPort) },
        readyLine: /rpc proxy listening/,
        readyTimeoutMs: 30_000,
      }).ready;
    }
    const rpcUrlFor = (client) => (proxyPort ? `http://127.0.0.1:${proxyPort}/${client}` : node.url);
    const chainEnv = {
      CHAIN_IDS: String(CHAIN_ID),
      [`RPC_URL_${CHAIN_ID}`]: rpcUrlFor('intent'),
      [`HARDFORK_${CHAIN_ID}`]: HARDFORK,
      [`DEX_FACTORY_${CHAIN_ID}`]: factory,
      [`DEX_ROUTER_${CHAIN_ID}`]: router,
      [`WRAPPED_NATIVE_${CHAIN_ID}`]: weth,
    };
    const productEnv = { ...baseEnv, RATE_LIMIT_PER_SECOND: '1000000', RATE_LIMIT_BURST: '1000000', HOST: '127.0.0.1' };
    const intentEnv = {
      ...productEnv,
      ...chainEnv,
      LAUNCH_POLL_INTERVAL_MS: String(P.servicePollMs),
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      SIGNER_TIMEOUT_MS: String(P.signerTimeoutMs),
    };
    step('starting the simulation service, the intent service and the gateway');
    const simulation = children.start('simulation-service', process.execPath, serviceArgs('simulation-service'), {
      cwd: ROOT,
      // LOG_REQUESTS: one line per simulation with its duration (the token probe's share of a round).
      env: { ...productEnv, [`RPC_URL_${CHAIN_ID}`]: rpcUrlFor('sim'), [`HARDFORK_${CHAIN_ID}`]: HARDFORK, LOG_REQUESTS: 'true' },
      readyLine: /listening on/,
      readyTimeoutMs: 30_000,
    });
    const simLog = followSimulationLog(simulation);
    await simulation.ready;
    const service = children.start('intent-service', process.execPath, serviceArgs('intent-service'), {
      cwd: ROOT,
      env: intentEnv,
      readyLine: /listening on/,
      readyTimeoutMs: 30_000,
    });
    const serviceLog = followServiceLog(service);
    await service.ready;
    const gatewayPort = await freePort();
    const gateway = children.start('gateway', process.execPath, [join(ROOT, 'apps/gateway/dist/main.js')], {
      cwd: ROOT,
      env: { ...productEnv, PORT: String(gatewayPort) },
      readyLine: /listening on/,
      readyTimeoutMs: 30_000,
    });
    await gateway.ready;
    await waitFor200(gatewayPort, '/health', { children, timeoutMs: 30_000, what: 'gateway /health' });

    // ---- the signing webhook, in its own process
    const agent = new http.Agent({ keepAlive: false });
    const secretRes = await request(agent, gatewayPort, { path: '/v1/intents/notifications/secret', headers: { 'x-api-key': key } });
    if (secretRes.status !== 200) throw new Error(`GET /v1/intents/notifications/secret: ${secretRes.status} ${secretRes.body.slice(0, 200)}`);
    const secret = JSON.parse(secretRes.body).secret;
    const webhookPort = await freePort();
    step(`starting the signing webhook (${P.signerThreads} signing thread(s)) on port ${webhookPort}`);
    const webhook = children.start('signing-webhook', process.execPath, [SELF, '--signing-webhook'], {
      cwd: ROOT,
      env: {
        ...process.env,
        BENCH_SIGNER_KEYS: wallets.map((w) => w.privateKey).join(','),
        BENCH_SIGNER_SECRET: secret,
        BENCH_SIGNER_THREADS: String(P.signerThreads),
        BENCH_SIGNER_PORT: String(webhookPort),
      },
      readyLine: /signing webhook listening/,
      readyTimeoutMs: 30_000,
    });
    await webhook.ready;
    const webhookUrl = `http://127.0.0.1:${webhookPort}/sign`;

    const machine = {
      ...hostInfo(),
      postgres: (await db.query('SELECT version() AS v')).rows[0].v,
      nats: { url: nats.url, private: nats.private, version: nats.version },
      chainNode: { client: node.version, hardhat: packageVersion('hardhat'), edr: packageVersion('@nomicfoundation/edr'), config: node.config },
      ethers: packageVersion('ethers'),
      code: codeVersion(),
    };
    const pids = {
      'intent-service': service.child.pid,
      'simulation-service': simulation.child.pid,
      'signing-webhook': webhook.child.pid,
      hardhat: node.pid,
      ...(nats.pid ? { 'nats-server': nats.pid } : {}),
    };
    const ctx = {
      dex,
      deployer,
      wallets,
      gatewayPort,
      key,
      db,
      serviceLog,
      webhookUrl,
      webhookPort,
      node,
      pids,
      simLog,
      proxyPort,
      webhookAgent: new http.Agent({ keepAlive: true, maxSockets: 1 }),
      pollAgent: new http.Agent({ keepAlive: true, maxSockets: 1 }),
    };
    run.onCleanup(() => {
      ctx.webhookAgent.destroy();
      ctx.pollAgent.destroy();
    });

    // ---- the launches
    const plan = [];
    for (const [size, runs] of [
      [P.small, P.smallRuns],
      [P.large, P.largeRuns],
    ]) {
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
      results.summary.push(summarize(size, results.runs.filter((r) => r.size === size && r.mode === 'block' && !r.warmup)));
    }
    results.failureSamples = [...serviceLog.failures];

    // ---- the pending scenario: the intent service follows the node's mempool
    if (P.pendingRuns > 0) {
      step(`restarting the intent service following the mempool (MEMPOOL_LAUNCHES_${CHAIN_ID}=${P.mempool})`);
      await children.stop(service);
      const mempoolEnv = { ...intentEnv, [`WS_URL_${CHAIN_ID}`]: node.url.replace(/^http/, 'ws'), [`MEMPOOL_LAUNCHES_${CHAIN_ID}`]: P.mempool };
      Object.assign(intentEnv, mempoolEnv);
      const followed = children.start('intent-service-mempool', process.execPath, serviceArgs('intent-service'), {
        cwd: ROOT,
        env: mempoolEnv,
        readyLine: /listening on/,
        readyTimeoutMs: 30_000,
      });
      ctx.serviceLog = followServiceLog(followed);
      await followed.ready;
      pids['intent-service'] = followed.child.pid;
      const pendingPlan = [];
      for (let i = 0; i < P.warmup; i++) pendingPlan.push({ warmup: true, label: `pending launch, ${P.small} intents, warm-up ${i + 1}` });
      for (let i = 0; i < P.pendingRuns; i++) pendingPlan.push({ warmup: false, label: `pending launch, ${P.small} intents, launch ${i + 1}/${P.pendingRuns}` });
      for (const p of pendingPlan) {
        step(`${p.label}: token, ${P.small} intents through the gateway, launch left pending`);
        const r = await launchOnce(ctx, P.small, p.label, 'pending');
        r.warmup = p.warmup;
        results.runs.push(r);
      }
      results.summary.push(summarize(P.small, results.runs.filter((r) => r.mode === 'pending' && !r.warmup), 'pending'));
      results.failureSamples.push(...ctx.serviceLog.failures);
    }

    const hold = envInt('BENCH_HOLD_SECONDS', 0, { min: 0, max: 3600 });
    if (hold > 0) {
      log(
        `holding the stack for ${hold} s (BENCH_HOLD_SECONDS): gateway http://127.0.0.1:${gatewayPort} (x-api-key ${key}), node ${node.url}, ` +
          `webhook ${webhookUrl}, NATS ${nats.url}, database ${dbName}; router ${router}, factory ${factory}, WETH9 ${weth}`,
      );
      const until = Date.now() + hold * 1000;
      while (Date.now() < until && !run.aborting) await sleep(500);
    }
    step('stopping children');
    await children.stopAll();
    results.childLogs = Object.fromEntries(children.list.map((e) => [e.name, logIssues(e.logPath)]));
    results.deployment = { weth, factory, router, deployer, wallets: wallets.length };
    return { results, machine, nats, node, intentEnv };
  }

  const t0 = performance.now();
  await run.complete(async () => {
    const out = await main();
    const totalSeconds = (performance.now() - t0) / 1000;
    const { text, targets, errors } = report(out.results, totalSeconds, out.machine);
    const json = {
      benchmark: 'launch',
      startedAt: startedAt.toISOString(),
      totalSeconds: round(totalSeconds, 1),
      command: 'npm run bench:launch',
      machine: out.machine,
      parameters: {
        ...P,
        database: dbName,
        natsUrl: out.nats.url,
        privateNats: out.nats.private,
        chainNodeUrl: out.node.url,
        intentServiceEnv: Object.fromEntries(
          Object.entries(out.intentEnv).filter(([k]) => /^(CHAIN_IDS|LAUNCH_|SIGNER_|WEBHOOK_|EXECUTION_|RPC_URL_|WS_URL_|MEMPOOL_|HARDFORK_|DEX_|WRAPPED_|LOG_FORMAT)/.test(k)),
        ),
        intent: {
          chainId: CHAIN_ID,
          wallet: `hardhat account 1 + (i mod ${P.wallets})`,
          buyAmount: BUY_AMOUNT.toString(),
          bribe: `${BRIBE_BASE} + (N - i) wei (distinct, descending with i)`,
          gasTip: '0',
          expiry: 'now + 1 h',
          webhookUrl: 'the signing webhook',
          limits: 'none (no minOut, slippage, taxes, liquidity)',
        },
        cpuProfile: profileDir,
        launch: { token: '@uniswap/v2-core ERC20, fresh per launch', pool: `${POOL_TOKENS} tokens + ${POOL_ETH} wei through addLiquidityETH` },
      },
      targets,
      errors,
      deployment: out.results.deployment,
      summary: out.results.summary,
      runs: out.results.runs,
      failureSamples: out.results.failureSamples,
      childLogs: out.results.childLogs,
    };
    return { path: RESULTS, json, text, errors, targetsMet: Object.values(targets).every((t) => t.met) };
  });
}
