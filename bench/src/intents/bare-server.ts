// The bare baseline of bench/src/intents/main.ts's full-suite scenario: `node:http` + `pg`, nothing else
// (no Express, no auth, no NATS, no validation, not even a router beyond one `if`). One process,
// connected as the superuser straight to the bench database:
//   POST /v1/intent               JSON.parse the body, insert the intent row (the service's own
//                                 columns and values, apps/intent-service/dist/intents/intent-row.js)
//                                 and answer 201 with its record: the bare insert of the same row
//   POST /v1/intent?outbox=1      the intent repository's exact create instead (the built
//                                 IntentsRepository on a plain pg pool): the same row and its
//                                 outbox row in one statement, no idempotency claim
//   GET  /health                  200
// so `full suite ÷ bare` is the price of everything the product adds on top of the insert.
//
// Env: PORT, PGHOST, PGPORT, PGDATABASE, PG_ADMIN_USER, PG_ADMIN_PASSWORD, BENCH_TENANT_ID,
// BASELINE_POOL_SIZE (default 20, the intent service's INTENT_DB_POOL_SIZE default).
import http, { type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { uuidv7 } from 'uuidv7';
import { baselineIntentStore } from '../harness/repositories.js';
import { ROOT } from '../harness/log.js';

/** apps/intent-service/dist/intents/intent-row.js: the service's own columns and values of an intent row. */
interface IntentRow {
  INSERT_COLUMNS: string;
  INSERT_VALUES: string;
  createParams(tenantId: string, id: string, intent: Record<string, unknown>): unknown[];
}

const { tenantId, pool, repository, withNulls } = await baselineIntentStore('bare');
const row = (await import(pathToFileURL(join(ROOT, 'apps', 'intent-service', 'dist', 'intents', 'intent-row.js')).href)) as IntentRow;
const INSERT_ROW = `INSERT INTO intent.intents AS x (${row.INSERT_COLUMNS}) VALUES (${row.INSERT_VALUES}) RETURNING intent.record_json(x) AS record`;

/** The intent row alone: what the service inserts, without its outbox row. */
async function insertRow(id: string, intent: Record<string, unknown>): Promise<unknown> {
  const { rows } = await pool.query<{ record: unknown }>(INSERT_ROW, row.createParams(tenantId, id, intent));
  return rows[0]!.record;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function create(raw: string, withOutbox: boolean): Promise<unknown> {
  const intent = withNulls((JSON.parse(raw) as Record<string, unknown> | null) ?? {});
  // As IntentsService.create without an Idempotency-Key: a new UUIDv7 (and claim null).
  return withOutbox ? await repository.create(tenantId, uuidv7(), intent, null) : await insertRow(uuidv7(), intent);
}

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/health') return send(res, 200, { status: 'ok' });
  const withOutbox = req.url === '/v1/intent?outbox=1';
  if (req.method !== 'POST' || (req.url !== '/v1/intent' && !withOutbox)) return send(res, 404, { error: true, name: 'NotFound' });
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    create(Buffer.concat(chunks).toString('utf8'), withOutbox).then(
      (record) => send(res, 201, record),
      (err: Error) => send(res, 500, { error: true, message: err.message }),
    );
  });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT || 0), '127.0.0.1', () => {
  process.stdout.write(`bare listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});

const stop = () => {
  server.close();
  server.closeAllConnections();
  void pool.end().finally(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
