import { randomBytes, randomUUID } from 'node:crypto';
import { dropRole, eventually, hideRole, within } from '@tradeinfra/test-support';
import { ApiError, TradeInfraClient, type CreateIntentInput } from '@tradeinfra/sdk';
import { intentBody, Stack, type HttpResponse } from './harness.js';

/*
 * Infrastructure errors are 503s (issue 25, item 3). A database taken away under the running
 * product (renamed: to its clients it is gone, 3D000, as after a drop) or a role taken away
 * (28000) made routes answer 500 InternalError; now every route that needs it answers 503
 * ServiceUnavailable with Retry-After and the spec's error body, naming no database, role or
 * statement, /ready names what is down, and everything recovers once it is back. The gateway,
 * the intent service and the payout service each have a database of their own here.
 */

const SOURCE = 'infra-src';
const sdkBody = () => intentBody() as unknown as CreateIntentInput;
const TX = `0x${'ef'.repeat(32)}`;

describe('infrastructure errors are 503s', () => {
  const intentRole = `ti_e2e_intent_${randomBytes(4).toString('hex')}`;
  let stack: Stack;
  let key: string;
  /** Strings no error body may hold: the databases' and the role's names, SQL, SQLSTATEs. */
  let secrets: string[];

  beforeAll(async () => {
    // Every request looks its key up (no cache), so the gateway's database is needed by each.
    stack = await Stack.start({ API_KEY_CACHE_TTL_MS: '0', INTENT_DB_USER: intentRole }, { ownDatabases: true });
    key = await stack.createKey({ scopes: ['admin'], tenant: 'infra' });
    expect((await stack.request('POST', '/v1/sources', { key, body: { id: SOURCE, tenant: 'infra' } })).status).toBe(201);
    secrets = [stack.db.name, stack.intentDb.name, stack.payoutDb.name, intentRole, 'does not exist', '3D000', '28000', 'SELECT', 'postgres'];
  });
  afterAll(async () => {
    await stack?.close();
    await dropRole(intentRole).catch(() => undefined);
  });

  /** A MEV entry for SOURCE, so that a payout request has something to claim. */
  const recordEntry = async () => {
    const event = { id: randomUUID(), chainId: 1, txHash: TX, sourceId: SOURCE, asset: 'ETH', amount: '0.25', type: 'mev', time: new Date().toISOString() };
    expect((await stack.request('POST', '/v1/payouts/entries', { key, body: event })).status).toBe(201);
  };
  const requestPayout = () =>
    stack.request('POST', `/v1/cashback/source/${SOURCE}/payout`, { key, body: { address: `0x${'2'.repeat(40)}`, chainId: 1, asset: 'ETH' } });

  function expect503(what: string, res: HttpResponse): void {
    expect(`${what}: ${res.status} ${res.text.slice(0, 300)}`).toMatch(new RegExp(`^${what.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: 503 `));
    expect(res.body).toEqual({ error: true, name: 'ServiceUnavailable', message: expect.stringMatching(/retry shortly/), details: null });
    expect(res.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    for (const secret of secrets) expect(`${what} leaks ${secret}: ${res.text.includes(secret)}`).toBe(`${what} leaks ${secret}: false`);
  }

  const ready = () => within(stack.request('GET', '/ready'), 5_000, '/ready');

  it('the gateway’s database gone: /ready 503 naming it, the payout request and the SDK’s create 503; both work again once it is back', async () => {
    await recordEntry();
    const sdk = new TradeInfraClient({ baseUrl: stack.baseUrl, apiKey: key, maxAttempts: 1 });
    const gone = await stack.db.hide();
    try {
      const notReady = await ready();
      expect(notReady.status).toBe(503);
      expect(notReady.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      expect(notReady.body).toMatchObject({ status: 'unavailable', checks: { database: 'down', nats: 'up' }, failing: ['database'] });

      expect503('payout request', await requestPayout());
      expect503('create', await stack.request('POST', '/v1/intent', { key, body: intentBody() }));
      const refused = (await sdk.intents.create(sdkBody()).catch((e: unknown) => e)) as ApiError;
      expect(refused).toBeInstanceOf(ApiError);
      expect({ status: refused.status, name: refused.name, retryAfterMs: refused.retryAfterMs }).toEqual({
        status: 503,
        name: 'ServiceUnavailable',
        retryAfterMs: 1000,
      });
    } finally {
      await gone.restore();
    }
    await eventually('ready again', async () => (await ready()).status === 200);
    expect((await requestPayout()).status).toBe(201);
    expect((await sdk.intents.create(sdkBody())).status).toBe('pending');
  });

  it('the SDK’s create retries a 503 and succeeds once the gateway’s database is back', async () => {
    let restore: (() => Promise<void>) | null = (await stack.db.hide()).restore;
    const retries: number[] = [];
    const sdk = new TradeInfraClient({
      baseUrl: stack.baseUrl,
      apiKey: key,
      maxAttempts: 3,
      // The first 503 brings the database back: the retry after its Retry-After finds it.
      onRetry: (info) => {
        retries.push(info.status ?? 0);
        void restore?.();
        restore = null;
      },
    });
    try {
      const created = await within(sdk.intents.create(sdkBody()), 15_000, 'create');
      expect(created.status).toBe('pending');
      expect(retries[0]).toBe(503);
    } finally {
      await restore?.();
    }
  });

  it('the intent service’s database gone: intent routes 503 (over NATS), /ready degraded naming the intent service; payouts unaffected; then recovery', async () => {
    const before = await stack.request('POST', '/v1/intent', { key, body: intentBody() });
    expect(before.status).toBe(201);
    const gone = await stack.intentDb.hide();
    try {
      expect503('create', await stack.request('POST', '/v1/intent', { key, body: intentBody() }));
      expect503('get', await stack.request('GET', `/v1/intent/${before.body.id}`, { key }));
      expect503('search', await stack.request('POST', '/v1/intents/search', { key, body: { addresses: [intentBody().wallet] } }));
      const degraded = await ready();
      expect(degraded.status).toBe(200);
      expect(degraded.body).toMatchObject({
        status: 'degraded',
        checks: { database: 'up', nats: 'up', services: { 'intent-service': 'down' } },
        failing: ['intent-service'],
      });
      expect((await stack.request('GET', `/v1/payouts/tx/${TX}`, { key })).status).toBe(200);
    } finally {
      await gone.restore();
    }
    await eventually('the intent service back', async () => (await stack.request('GET', `/v1/intent/${before.body.id}`, { key })).status === 200);
    expect((await stack.request('POST', '/v1/intent', { key, body: intentBody() })).status).toBe(201);
    expect((await ready()).body).toMatchObject({ status: 'ok', failing: [] });
  });

  it('the payout service’s database gone: the payout request 503 (the reported route), then recovery', async () => {
    await recordEntry();
    const gone = await stack.payoutDb.hide();
    try {
      expect503('payout request', await requestPayout());
      expect503('cashback', await stack.request('GET', `/v1/cashback/source/${SOURCE}`, { key }));
      expect((await ready()).body).toMatchObject({ status: 'degraded', failing: ['payout-service'] });
    } finally {
      await gone.restore();
    }
    await eventually('the payout service back', async () => (await requestPayout()).status === 201);
  });

  it('the intent service’s role gone (28000): 503, then recovery once it is back', async () => {
    const gone = await hideRole(intentRole);
    try {
      expect503('create', await stack.request('POST', '/v1/intent', { key, body: intentBody() }));
      expect((await ready()).body).toMatchObject({ status: 'degraded', failing: ['intent-service'] });
    } finally {
      await gone.restore();
    }
    await eventually('the intent service back', async () => (await stack.request('POST', '/v1/intent', { key, body: intentBody() })).status === 201);
  });
});
