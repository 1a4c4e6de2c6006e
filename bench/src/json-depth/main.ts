// JSON depth check benchmark: `npm run bench:json-depth` (or, built: node bench/dist/json-depth/main.js).
//
// What the gateway's depth check (contracts' nestsDeeperThan, issue 25 item 2) costs next to the
// parse it guards, on large flat bodies every route could get, and how fast it refuses 400,000
// levels. In-process, one thread, no database or NATS. Each figure is the median of
// BENCH_JSON_ROUNDS rounds (21) of BENCH_JSON_REPS calls (50), after a warm-up.
// Writes bench/results/json-depth.json and prints a table.
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { MAX_JSON_DEPTH, nestsDeeperThan, parseJson } from '@tradeinfra/contracts';
import { envInt, log, resultsPath, round, table } from '../harness/index.js';

const P = { rounds: envInt('BENCH_JSON_ROUNDS', 21, { max: 1_000 }), reps: envInt('BENCH_JSON_REPS', 50, { max: 100_000 }) };

const WALLET = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const address = (i: number) => `0x${i.toString(16).padStart(40, '0')}`;
const word = (i: number) => `0x${i.toString(16).padStart(64, '0')}`;

/** Flat bodies (at most 8 levels) as routes get them, the largest each limit takes. */
const BODIES: Record<string, string> = {
  'intent create': JSON.stringify({
    chainId: 1,
    wallet: WALLET,
    tokenAddress: address(7),
    bribe: '1000',
    buyAmount: '1000000000000000000',
    expiry: 1_900_000_000,
  }),
  '100-intent batch': JSON.stringify(
    Array.from({ length: 100 }, (_, i) => ({
      chainId: 1,
      wallet: WALLET,
      tokenAddress: address(i),
      bribe: '1000',
      buyAmount: '1000000000000000000',
      expiry: 1_900_000_000,
      maxBuyTax: 0.1,
      minOut: '1',
      feeBps: 10,
      firstOrFail: true,
    })),
  ),
  'simulate, 1 MiB of code': JSON.stringify({
    chainId: 1,
    calls: [{ from: WALLET, to: address(1), data: `0x${'ab'.repeat(1000)}` }],
    overrides: { contractCodes: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [address(i), `0x${'fe'.repeat(24_000)}`])) },
  }),
  'simulate, 4,000 storage slots': JSON.stringify({
    chainId: 1,
    calls: [{ from: WALLET, to: address(1), data: '0x' }],
    overrides: { storage: { [address(3)]: Object.fromEntries(Array.from({ length: 4_000 }, (_, i) => [word(i), word(i * 7)])) } },
  }),
  'simulate, 60,000 numbers': JSON.stringify({ chainId: 1, calls: [], numbers: Array.from({ length: 60_000 }, (_, i) => i * 12_345) }),
  'simulate, 2,000 calls, indented': JSON.stringify(
    { chainId: 1, calls: Array.from({ length: 2_000 }, (_, i) => ({ from: WALLET, to: address(i), data: '0x', nonce: i })) },
    null,
    8,
  ),
  '20,000 empty arrays (a bracket every 2 bytes)': `[${Array.from({ length: 20_000 }, () => '[]').join(',')}]`,
};

/** Median µs per call of `fn` over the rounds. */
function microseconds(fn: () => unknown): number {
  for (let i = 0; i < P.reps * 2; i++) fn();
  const perRound: number[] = [];
  for (let r = 0; r < P.rounds; r++) {
    const started = performance.now();
    for (let i = 0; i < P.reps; i++) fn();
    perRound.push(((performance.now() - started) * 1000) / P.reps);
  }
  perRound.sort((a, b) => a - b);
  return perRound[Math.floor(perRound.length / 2)]!;
}

const flat = Object.entries(BODIES).map(([name, text]) => {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) throw new Error(`${name} is not flat`);
  const check = microseconds(() => nestsDeeperThan(text, MAX_JSON_DEPTH));
  const parse = microseconds(() => JSON.parse(text));
  log(`${name}: check ${check.toFixed(1)} µs, JSON.parse ${parse.toFixed(1)} µs`);
  return { body: name, bytes: text.length, checkUs: round(check, 1), jsonParseUs: round(parse, 1), checkPercentOfParse: round((100 * check) / parse, 1) };
});

const DEEP = '['.repeat(400_000) + ']'.repeat(400_000);
const refuse = microseconds(() => {
  try {
    parseJson(DEEP);
  } catch {
    // JsonTooDeepError, the point
  }
});
const started = performance.now();
JSON.parse(DEEP);
const parseDeep = performance.now() - started;

const figures = {
  date: new Date().toISOString(),
  host: { node: process.version, cpus: os.cpus().length, model: os.cpus()[0]?.model, load: os.loadavg().map((l) => round(l, 2)) },
  parameters: { ...P, maxDepth: MAX_JSON_DEPTH },
  flat,
  deep400k: { bytes: DEEP.length, refusedInUs: round(refuse, 1), jsonParseItWouldCostMs: round(parseDeep, 1) },
};
writeFileSync(resultsPath('json-depth'), `${JSON.stringify(figures, null, 2)}\n`);
process.stdout.write(
  `${table(
    flat.map((f) => [f.body, f.bytes, f.checkUs, f.jsonParseUs, `${f.checkPercentOfParse}%`]),
    ['body', 'bytes', 'check µs', 'JSON.parse µs', 'check/parse'],
    1,
  )}\n\n400,000 levels (${DEEP.length} bytes): refused in ${figures.deep400k.refusedInUs} µs (JSON.parse of it: ${figures.deep400k.jsonParseItWouldCostMs} ms)\nwritten to ${resultsPath('json-depth')}\n`,
);
