// Steps 4 to 6 of the intents bench: reads on the seeded table (fetch, search through the
// gateway and the baseline, the same searches straight on Postgres) and the plans of their SQL.
import type pg from 'pg';
import {
  cpuMeter,
  fmtRun,
  loadIntentsRepository,
  log,
  pick,
  pickDistinct,
  round,
  runLoad,
  type Figures,
  type LoadOptions,
  type LoadResult,
} from '../harness/index.js';
import { IntentsRepo, P, phaseLimitMs, pool, step } from './context.js';
import { explain, sqlRun } from './seed.js';
import { Reply } from '../harness/index.js';

/** What the reads need from the steps before them. */
export interface ReadsSetup {
  results: Figures;
  db: pg.Pool;
  dbName: string;
  tenantId: string;
  /** The seeded wallets, and ids of seeded intents. */
  wallets: string[];
  seedIds: string[];
  gatewayPort: number;
  baselinePort: number;
  auth: Record<string, string>;
  productPids: Record<string, number | undefined>;
  baselinePids: Record<string, number | undefined>;
}

interface ReadOptions {
  concurrency: number;
  expect?: number;
  check?: LoadOptions['check'];
  onSample?: LoadOptions['onSample'];
  pids?: Record<string, number | undefined> | null;
}

/** A 10-wallet search that answered with a next page: its wallets, cursor and last id. */
interface Page {
  wallets: string[];
  cursor: string;
  lastId: string;
}

/** A read load of BENCH_READ_REQUESTS requests (after min(BENCH_WARMUP, 200) unmeasured ones). */
async function readRun(
  label: string,
  port: number,
  make: LoadOptions['make'],
  { concurrency, expect = 200, check = null, onSample = null, pids = null }: ReadOptions,
): Promise<LoadResult> {
  step(`${label}: ${P.readRequests} requests at concurrency ${concurrency}`);
  const meter = pids ? cpuMeter(pids) : null;
  const r = await runLoad({
    port,
    concurrency,
    warmup: Math.min(P.warmup, 200),
    total: P.readRequests,
    maxMs: phaseLimitMs(),
    make,
    expect,
    check,
    onSample,
  });
  if (meter) r.cpuPercentOfOneCore = meter.stop();
  log(`  ${fmtRun(r)}`);
  return r;
}

/** 4. fetch by id, gateway and baseline, at concurrency 1 and BENCH_CONCURRENCY. */
export async function fetchScenarios(s: ReadsSetup): Promise<void> {
  const { results, seedIds, gatewayPort, baselinePort, auth, productPids, baselinePids } = s;
  const makeFetch = (headers: Record<string, string>) => () => ({ method: 'GET', path: `/v1/intent/${pick(seedIds)}`, headers });
  const checkFetch = (res: Reply, i: number) => {
    if (i % 20 !== 0) return null;
    const body = JSON.parse(res.body);
    return body && typeof body.id === 'string' && body.wallet ? null : `unexpected body ${res.body.slice(0, 200)}`;
  };
  results.scenarios.fetchGatewayC1 = await readRun('fetch via the gateway', gatewayPort, makeFetch(auth), { concurrency: 1, check: checkFetch });
  results.scenarios.fetchGatewayCN = await readRun('fetch via the gateway', gatewayPort, makeFetch(auth), {
    concurrency: P.concurrency,
    check: checkFetch,
    pids: productPids,
  });
  results.scenarios.fetchBaselineC1 = await readRun('fetch via the baseline', baselinePort, makeFetch({}), { concurrency: 1, check: checkFetch });
  results.scenarios.fetchBaselineCN = await readRun('fetch via the baseline', baselinePort, makeFetch({}), {
    concurrency: P.concurrency,
    check: checkFetch,
    pids: baselinePids,
  });
}

/** 5. search (addresses sent in lowercase: the service normalises them to EIP-55); the next pages seen. */
export async function searchScenarios(s: ReadsSetup): Promise<Page[]> {
  const { results, tenantId, wallets: seeded, gatewayPort, auth, productPids, dbName } = s;
  const searchBody = (wallets: string[], cursor: string | null = null) =>
    JSON.stringify({ addresses: wallets.map((w) => w.toLowerCase()), limit: P.searchLimit, ...(cursor ? { cursor } : {}) });
  const rowsSeen: any[] = [];
  const checkSearch = (res: Reply) => {
    const body = JSON.parse(res.body);
    if (!Array.isArray(body)) return `not an array: ${res.body.slice(0, 200)}`;
    rowsSeen.push(body.length);
    for (let k = 1; k < body.length; k++) if (!(body[k - 1].id > body[k].id)) return 'results not newest-first';
    if (body.some((x) => x.status !== 'pending')) return 'a non-pending intent in a default-status search';
    return null;
  };
  const summarizeRows = (r: LoadResult) => {
    r.rowsPerAnswer = {
      mean: round(rowsSeen.reduce((a, b) => a + b, 0) / Math.max(1, rowsSeen.length), 1),
      min: Math.min(...rowsSeen),
      max: Math.max(...rowsSeen),
    };
    rowsSeen.length = 0;
    return r;
  };

  const searchMake = (n: number) => () => ({ method: 'POST', path: '/v1/intents/search', headers: auth, body: searchBody(pickDistinct(seeded, n)) });
  results.scenarios.search1 = summarizeRows(
    await readRun('search, 1 wallet, via the gateway', gatewayPort, searchMake(1), { concurrency: 1, check: checkSearch }),
  );

  // 10 wallets: remember each measured request's wallets and x-next-cursor for the page-2 run.
  const pages: Page[] = [];
  const tenWallets: any[] = [];
  results.scenarios.search10 = summarizeRows(
    await readRun(
      'search, 10 wallets, via the gateway',
      gatewayPort,
      (i) => {
        const wallets = pickDistinct(seeded, 10);
        tenWallets[i] = wallets;
        return { method: 'POST', path: '/v1/intents/search', headers: auth, body: searchBody(wallets) };
      },
      {
        concurrency: 1,
        check: checkSearch,
        onSample: (res, i) => {
          const cursor = res.headers['x-next-cursor'];
          if (typeof cursor === 'string' && tenWallets[i]) {
            const body = JSON.parse(res.body) as Array<{ id: string }>;
            pages.push({ wallets: tenWallets[i], cursor, lastId: body[body.length - 1]!.id });
          }
        },
      },
    ),
  );
  results.scenarios.search10.answersWithNextCursor = pages.length;
  if (pages.length === 0) {
    log('  WARNING: no 10-wallet search answered with x-next-cursor (too few seeded rows?): next-page run skipped');
  } else
    results.scenarios.search10Page2 = summarizeRows(
      await readRun(
        'search, 10 wallets, next page (x-next-cursor), via the gateway',
        gatewayPort,
        (i) => ({
          method: 'POST',
          path: '/v1/intents/search',
          headers: auth,
          body: searchBody(pages[i % pages.length].wallets, pages[i % pages.length].cursor),
        }),
        {
          concurrency: 1,
          check: (res, i) => {
            const wrong = checkSearch(res);
            if (wrong) return wrong;
            const body = JSON.parse(res.body);
            return body.length > 0 && !(body[0].id < pages[i % pages.length].lastId) ? 'next page overlaps the first' : null;
          },
        },
      ),
    );
  results.scenarios.search1CN = summarizeRows(
    await readRun('search, 1 wallet, via the gateway', gatewayPort, searchMake(1), { concurrency: P.concurrency, check: checkSearch, pids: productPids }),
  );

  // The same searches straight on Postgres (superuser, one connection, the repository's SQL):
  // the database's share of the gateway's search latency.
  const sqlPool = pool(dbName, 1);
  const sqlSearch = (n: number) => (repo: IntentsRepo) =>
    repo.search({ tenantId, wallets: pickDistinct(seeded, n), statuses: ['pending'], beforeId: null, limit: P.searchLimit + 1 });
  const IntentsRepository = await loadIntentsRepository();
  results.scenarios.search1Sql = await sqlRun('search, 1 wallet, SQL only', sqlPool, IntentsRepository, sqlSearch(1));
  results.scenarios.search10Sql = await sqlRun('search, 10 wallets, SQL only', sqlPool, IntentsRepository, sqlSearch(10));

  return pages;
}

/** 6. plans, as the superuser, with the parameters the service passes (limit + 1). */
export async function planScenarios(s: ReadsSetup, pages: Page[]): Promise<void> {
  const { results, db, tenantId, wallets: seeded, seedIds } = s;
  const IntentsRepository = await loadIntentsRepository();
  step('EXPLAIN (ANALYZE, BUFFERS) of the search and fetch SQL');
  const w1 = pickDistinct(seeded, 1);
  const w10 = pickDistinct(seeded, 10);
  const page = pages[0];
  // The query IntentsService.search sends for a default-status request: limit + 1 rows.
  const search = (wallets: string[], beforeId: string | null) => (repo: IntentsRepo) =>
    repo.search({ tenantId, wallets, statuses: ['pending'], beforeId, limit: P.searchLimit + 1 });
  results.plans = {
    search1Wallet: await explain(db, IntentsRepository, search(w1, null)),
    search10Wallets: await explain(db, IntentsRepository, search(w10, null)),
    ...(page ? { search10WalletsNextPage: await explain(db, IntentsRepository, search(page.wallets, page.lastId)) } : {}),
    fetchById: await explain(db, IntentsRepository, (repo) => repo.findById(tenantId, pick(seedIds))),
  };
}
