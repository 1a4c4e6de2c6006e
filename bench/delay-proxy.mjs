#!/usr/bin/env node
// A delaying, counting HTTP proxy for a JSON-RPC node (used by bench/simulate.mjs).
//
// Every HTTP request is held for `delayMs` and then forwarded to `upstream`; the answer goes back
// as it came. It counts HTTP requests (= upstream round trips: a JSON-RPC batch is one request),
// JSON-RPC calls by method, batch sizes, and keeps the last `traceLimit` requests' method lists,
// so a benchmark can tell how many round trips one simulation made and what each one carried.
//
// With `emulateAccessList`, it answers eth_createAccessList itself, for nodes that lack it (hardhat):
// inside the same delayed round trip, it runs the call as debug_traceCall on the node (struct
// logger, memory and storage off) and lists what the call touched the way geth does: SLOAD/SSTORE
// slots under the storage context that ran them, and the targets of BALANCE, EXTCODE*, CALL,
// CALLCODE, DELEGATECALL and STATICCALL (the sender and precompiles left out). A reverting call
// gets the list of what it touched up to the revert, plus `error`, as geth answers.
//
// As a library:   const proxy = await startDelayProxy({ upstream, delayMs: 20 }); proxy.url; proxy.stats(); await proxy.close();
// On its own:     node bench/delay-proxy.mjs --upstream http://127.0.0.1:8545 [--port 8546] [--delay 20] [--emulate-access-list]
//                 (GET /__proxy/stats answers the counters as JSON; POST /__proxy/reset zeroes them)
import http from 'node:http';
import { fileURLToPath } from 'node:url';

/**
 * Starts the proxy on 127.0.0.1 (`port` 0: a free one). Resolves with
 * `{ url, port, stats(), reset(), trace(), close() }`.
 */
export async function startDelayProxy({ upstream, delayMs = 20, port = 0, host = '127.0.0.1', traceLimit = 10_000, maxBodyBytes = 64 * 1024 * 1024, emulateAccessList = false }) {
  const target = new URL(upstream);
  if (target.protocol !== 'http:') throw new Error(`delay proxy: upstream must be http:// (got ${upstream})`);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const counters = fresh();
  /** Never reset: everything since the proxy started. */
  const lifetime = fresh();
  let traceLog = [];
  let seq = 0;

  function fresh() {
    return { requests: 0, calls: 0, byMethod: {}, batchSizes: {}, upstreamErrors: 0, unparsable: 0, emulatedAccessLists: 0 };
  }

  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/__proxy/stats') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ delayMs, sinceReset: snapshot(), sinceStart: snapshot(lifetime) }));
      return;
    }
    if (req.method === 'POST' && req.url === '/__proxy/reset') {
      reset();
      res.writeHead(204).end();
      return;
    }
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size > maxBodyBytes) {
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('error', () => {});
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const id = ++seq;
      const calls = count(body);
      if (traceLog.length < traceLimit) traceLog.push({ seq: id, at: performance.now(), methods: calls.map((c) => c.method), params: calls.map((c) => c.params) });
      const emulate = emulateAccessList && calls.some((c) => c.method === 'eth_createAccessList');
      setTimeout(() => (emulate ? answerWithAccessLists(res, body) : forward(req, res, body)), delayMs);
    });
  });
  server.keepAliveTimeout = 60_000;

  function count(body) {
    const both = [counters, lifetime];
    for (const c of both) c.requests++;
    let parsed;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      for (const c of both) c.unparsable++;
      return [];
    }
    const list = Array.isArray(parsed) ? parsed : [parsed];
    for (const c of both) c.batchSizes[list.length] = (c.batchSizes[list.length] ?? 0) + 1;
    const calls = [];
    for (const call of list) {
      const m = call && typeof call.method === 'string' ? call.method : '(none)';
      for (const c of both) {
        c.calls++;
        c.byMethod[m] = (c.byMethod[m] ?? 0) + 1;
      }
      calls.push({ method: m, params: Array.isArray(call?.params) ? call.params : [] });
    }
    return calls;
  }

  function forward(req, res, body) {
    const headers = { ...req.headers, host: target.host, 'content-length': body.length };
    const up = http.request(
      { protocol: target.protocol, hostname: target.hostname, port: target.port, path: target.pathname + target.search, method: req.method, headers, agent },
      (upRes) => {
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
      },
    );
    up.on('error', (err) => {
      counters.upstreamErrors++;
      lifetime.upstreamErrors++;
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`delay proxy: upstream error: ${err.message}`);
    });
    up.end(body);
  }

  /** Posts a JSON-RPC payload to the node (not counted: the proxy's own work), resolves with the parsed answer. */
  function post(payload) {
    return new Promise((resolve, reject) => {
      const text = JSON.stringify(payload);
      const up = http.request(
        { hostname: target.hostname, port: target.port, path: target.pathname + target.search, method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } },
        (upRes) => {
          const chunks = [];
          upRes.on('data', (c) => chunks.push(c));
          upRes.on('end', () => {
            try {
              resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
            } catch (err) {
              reject(err);
            }
          });
          upRes.on('error', reject);
        },
      );
      up.on('error', reject);
      up.end(text);
    });
  }

  /** A request holding eth_createAccessList calls: those are emulated, the rest go to the node as one batch. */
  async function answerWithAccessLists(res, body) {
    let answers;
    try {
      const parsed = JSON.parse(body.toString('utf8'));
      const list = Array.isArray(parsed) ? parsed : [parsed];
      const passthrough = list.filter((c) => c.method !== 'eth_createAccessList');
      const [forwarded, emulated] = await Promise.all([
        passthrough.length ? post(passthrough) : [],
        Promise.all(list.filter((c) => c.method === 'eth_createAccessList').map((c) => emulatedAccessList(c))),
      ]);
      const byId = new Map([...(Array.isArray(forwarded) ? forwarded : [forwarded]), ...emulated].map((a) => [a.id, a]));
      answers = list.map((c) => byId.get(c.id) ?? { jsonrpc: '2.0', id: c.id, error: { code: -32603, message: 'delay proxy: no answer' } });
      answers = Array.isArray(parsed) ? answers : answers[0];
    } catch (err) {
      counters.upstreamErrors++;
      lifetime.upstreamErrors++;
      res.writeHead(502, { 'content-type': 'text/plain' }).end(`delay proxy: ${err.message}`);
      return;
    }
    const text = JSON.stringify(answers);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
  }

  async function emulatedAccessList(call) {
    const [tx, block = 'latest'] = call.params ?? [];
    const reply = await post({ jsonrpc: '2.0', id: call.id, method: 'debug_traceCall', params: [tx, block, { disableMemory: true, disableStorage: true }] });
    if (reply.error) return { jsonrpc: '2.0', id: call.id, error: reply.error };
    counters.emulatedAccessLists++;
    lifetime.emulatedAccessLists++;
    const { accessList } = accessListFromStructLogs(tx, reply.result.structLogs ?? []);
    return {
      jsonrpc: '2.0',
      id: call.id,
      result: { accessList, gasUsed: `0x${Number(reply.result.gas ?? 0).toString(16)}`, ...(reply.result.failed ? { error: 'execution reverted' } : {}) },
    };
  }

  function snapshot(of = counters) {
    return { ...of, byMethod: { ...of.byMethod }, batchSizes: { ...of.batchSizes } };
  }

  function reset() {
    Object.assign(counters, fresh());
    traceLog = [];
  }

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const actual = server.address().port;
  return {
    url: `http://${host}:${actual}`,
    port: actual,
    delayMs,
    /** Counters since the last reset (or the start). */
    stats: () => snapshot(),
    /** Counters since the start (reset leaves them alone). */
    totals: () => snapshot(lifetime),
    reset,
    /** The requests seen since the last reset: `{seq, at, methods, params}` each (at most traceLimit). */
    trace: () => traceLog.slice(),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections?.();
        agent.destroy();
      }),
  };
}

const CALLS = new Set(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL']);
const ADDRESS_OPS = new Set(['BALANCE', 'EXTCODESIZE', 'EXTCODECOPY', 'EXTCODEHASH']);

/** geth's access list of one call, from struct logs (stack entries as 64 hex digits, no 0x). */
export function accessListFromStructLogs(tx, logs) {
  const from = String(tx.from ?? '').toLowerCase();
  const entries = new Map();
  const add = (address, slot = null) => {
    if (address === null) return;
    if (slot === null && (address === from || BigInt(address) <= 0x11n)) return; // sender, precompiles
    if (!entries.has(address)) entries.set(address, new Set());
    if (slot !== null) entries.get(address).add(slot);
  };
  const word = (w) => `0x${String(w).replace(/^0x/, '').padStart(64, '0')}`;
  const address = (w) => `0x${String(w).replace(/^0x/, '').padStart(64, '0').slice(24)}`;
  // context[d - 1]: the account whose storage the code at depth d reads and writes (null: a creation).
  const context = [tx.to ? String(tx.to).toLowerCase() : null];
  for (const step of logs) {
    const stack = step.stack ?? [];
    const top = (k) => stack[stack.length - 1 - k];
    const here = context[step.depth - 1] ?? null;
    if (step.op === 'SLOAD' || step.op === 'SSTORE') add(here, word(top(0)));
    else if (ADDRESS_OPS.has(step.op)) add(address(top(0)));
    else if (CALLS.has(step.op)) {
      const callee = address(top(1));
      add(callee);
      context[step.depth] = step.op === 'DELEGATECALL' || step.op === 'CALLCODE' ? here : callee;
    } else if (step.op === 'CREATE' || step.op === 'CREATE2') context[step.depth] = null;
  }
  return { accessList: [...entries].map(([a, slots]) => ({ address: a, storageKeys: [...slots] })) };
}

/** Difference of two `stats()` snapshots (b after a). */
export function statsDelta(a, b) {
  const byMethod = {};
  for (const [m, n] of Object.entries(b.byMethod)) {
    const d = n - (a.byMethod[m] ?? 0);
    if (d) byMethod[m] = d;
  }
  return { requests: b.requests - a.requests, calls: b.calls - a.calls, byMethod, upstreamErrors: b.upstreamErrors - a.upstreamErrors };
}

// ---------------------------------------------------------------- standalone

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const opt = (name, fallback) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
  };
  const upstream = opt('upstream', null);
  if (!upstream) {
    process.stderr.write('usage: node bench/delay-proxy.mjs --upstream http://127.0.0.1:8545 [--port 0] [--delay 20] [--emulate-access-list]\n');
    process.exit(64);
  }
  const proxy = await startDelayProxy({ upstream, port: Number(opt('port', 0)), delayMs: Number(opt('delay', 20)), emulateAccessList: args.includes('--emulate-access-list') });
  process.stdout.write(`delay proxy listening on ${proxy.url} → ${upstream} (+${proxy.delayMs} ms per request)\n`);
  const stop = () => void proxy.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
