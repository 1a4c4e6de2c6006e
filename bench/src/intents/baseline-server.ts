// The baseline for bench/src/intents/main.ts: the least a server can do to offer the same two calls.
// Express + pg, one process, connected as the superuser straight to the bench database; no
// auth, no NATS, no validation beyond JSON parsing. It runs the intent repository's exact SQL
// (the built IntentsRepository class itself, handed a pg pool instead of a TypeORM DataSource):
//   POST /v1/intent      repository.create without idempotency (intent + outbox row, one statement)
//   GET  /v1/intent/:id  repository.findById
// so `gateway ÷ baseline` is the price of everything the product adds on top of the database.
//
// Env: PORT, PGHOST, PGPORT, PGDATABASE, PG_ADMIN_USER, PG_ADMIN_PASSWORD, BENCH_TENANT_ID,
// BASELINE_POOL_SIZE (default 20, the intent service's INTENT_DB_POOL_SIZE default).
import express from 'express';
import type { AddressInfo } from 'node:net';
import { uuidv7 } from 'uuidv7';
import { baselineIntentStore } from '../harness/repositories.js';

const { tenantId, pool, repository, withNulls } = await baselineIntentStore('baseline');

const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.use(express.json({ limit: 64 * 1024 }));

app.get('/health', (_req, res) => {
  res.json({ status: 'ok' });
});

app.post('/v1/intent', async (req, res) => {
  const b = (req.body as Record<string, unknown> | undefined) ?? {};
  try {
    // Same call as IntentsService.create without an Idempotency-Key: a new UUIDv7, claim null.
    const record: unknown = await repository.create(tenantId, uuidv7(), withNulls(b), null);
    res.status(201).json(record);
  } catch (err) {
    res.status(500).json({ error: true, message: (err as Error).message });
  }
});

app.get('/v1/intent/:id', async (req, res) => {
  try {
    const record: unknown = await repository.findById(tenantId, req.params.id);
    if (!record) res.status(404).json({ error: true, name: 'NotFound' });
    else res.json(record);
  } catch (err) {
    res.status(500).json({ error: true, message: (err as Error).message });
  }
});

const server = app.listen(Number(process.env.PORT || 0), '127.0.0.1', () => {
  server.keepAliveTimeout = 65_000;
  process.stdout.write(`baseline listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});

const stop = () => {
  server.close();
  server.closeAllConnections();
  void pool.end().finally(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
