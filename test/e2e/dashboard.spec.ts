/// <reference lib="dom" />
// Functions passed to page.evaluate/waitForFunction run in the browser: they see the DOM.
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { randomBytes, randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jetstream } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { mevCaptureSubject } from '@tradeinfra/contracts';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { signDashboardToken } from '../../apps/gateway/src/dashboard/dashboard-token.js';
import { intentBody, randomWallet, Stack } from './harness.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Debian's `chromium` (apt-get install -y chromium); CHROMIUM_PATH overrides. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SECRET = randomBytes(32).toString('hex');
const PAYEE = '0x1111111111111111111111111111111111111111';

describe('customer dashboard in headless Chromium', () => {
  let stack: Stack;
  let nc: NatsConnection;
  let browser: Browser;
  let key: string;
  let tenantId: string;
  const source = `dash-${randomBytes(4).toString('hex')}`;
  const pages: Page[] = [];

  async function open(url: string): Promise<Page> {
    const page = await browser.newPage();
    pages.push(page);
    await page.setViewport({ width: 1280, height: 900 });
    await page.goto(url, { waitUntil: 'domcontentloaded' });
    return page;
  }
  async function dashboardUrl(path: string, withKey = key): Promise<string> {
    const res = await stack.request('GET', path, { key: withKey });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    return (res.body as { url: string }).url;
  }
  const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;
  async function createIntent(overrides: Record<string, unknown> = {}): Promise<string> {
    const res = await stack.request('POST', '/v1/intent', { key, body: intentBody(overrides) });
    expect(res.status).toBe(201);
    return (res.body as { id: string }).id;
  }
  const rowIds = (page: Page) => page.$$eval('#intents tbody tr', (rows) => rows.map((r) => r.getAttribute('data-intent-id')!));

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`Chromium is missing at ${CHROMIUM}: install Debian's package (sudo apt-get install -y chromium) or set CHROMIUM_PATH`);
    }
    // The page is built by `npm run build`; build it here too so this file runs on its own.
    execFileSync(process.execPath, [join(ROOT, 'apps', 'gateway', 'scripts', 'build-dashboard.mjs')], { stdio: 'inherit' });
    stack = await Stack.start({ DASHBOARD_TOKEN_SECRET: SECRET });
    nc = await connect({ servers: stack.nats.url });
    const admin = await stack.createKey({ scopes: ['admin'] });
    const tenant = `tenant-${randomUUID()}`;
    ({ key, tenantId } = await stack.createKeyWithTenant({ tenant }));
    expect((await stack.request('POST', '/v1/sources', { key: admin, body: { id: source, tenant } })).status).toBe(201);
    const js = jetstream(nc);
    for (const [asset, amount] of [
      ['ETH', '0.5'],
      ['ETH', '0.123456789012345678'],
      ['USDC', '20.5'],
    ] as const) {
      const event = {
        id: randomUUID(),
        chainId: 1,
        txHash: `0x${randomBytes(32).toString('hex')}`,
        sourceId: source,
        asset,
        amount,
        type: 'mev',
        time: new Date().toISOString(),
      };
      await js.publish(mevCaptureSubject(1), JSON.stringify(event));
    }
    browser = await puppeteer.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--headless=new'] });
  });
  afterAll(async () => {
    await browser?.close();
    await nc?.close();
    await stack?.close();
  });
  afterEach(async () => {
    for (const page of pages.splice(0)) await page.close();
  });

  it('hands out short-lived signed URLs for the caller’s tenant and sources only', async () => {
    const res = await stack.request('GET', '/v1/dashboard-url', { key });
    expect(res.status).toBe(200);
    const { url, expiresAt } = res.body as { url: string; expiresAt: string };
    expect(url.startsWith(`${stack.baseUrl}/dashboard?token=`)).toBe(true);
    const ttl = Date.parse(expiresAt) - Date.now();
    expect(ttl).toBeGreaterThan(14 * 60_000);
    expect(ttl).toBeLessThanOrEqual(15 * 60_000);
    // Another tenant's source is not found, as on every payout route.
    const other = await stack.createKey();
    expect((await stack.request('GET', `/v1/source/${source}/dashboard-url`, { key: other })).status).toBe(404);
    expect((await stack.request('GET', `/v1/source/${source}/dashboard-url`, { key: await stack.createKey({ scopes: ['intents:read'] }) })).status).toBe(403);
    expect((await stack.request('GET', '/v1/dashboard-url')).status).toBe(401);
  });

  it('accepts a token only on the allow-listed routes, for its own tenant and source', async () => {
    const intentsToken = tokenOf(await dashboardUrl('/v1/dashboard-url'));
    const sourceToken = tokenOf(await dashboardUrl(`/v1/source/${source}/dashboard-url`));
    const as = (token: string) => ({ authorization: `Dashboard ${token}` });
    const search = await stack.request('POST', '/v1/intents/search', { headers: as(intentsToken), body: {} });
    expect(search.status).toBe(200);
    expect(search.headers.get('x-ratelimit-limit')).not.toBeNull();
    // An API key's search still needs addresses.
    expect((await stack.request('POST', '/v1/intents/search', { key, body: {} })).status).toBe(400);
    // Not on the allow-list: creating, cancelling, minting URLs, the ledger.
    for (const [method, path] of [
      ['POST', '/v1/intent'],
      ['GET', '/v1/dashboard-url'],
      ['GET', '/v1/payouts'],
      ['GET', '/v1/intents/notifications/secret'],
    ] as const) {
      const r = await stack.request(method, path, { headers: as(sourceToken), body: method === 'POST' ? intentBody() : undefined });
      expect([path, r.status, r.body.name]).toEqual([path, 403, 'Forbidden']);
    }
    // The query-string form is for the event stream only.
    expect((await stack.request('POST', `/v1/intents/search?token=${intentsToken}`, { body: {} })).status).toBe(401);
    // An intents token reads no cashback; a source token only its own source.
    expect((await stack.request('GET', `/v1/cashback/source/${source}`, { headers: as(intentsToken) })).status).toBe(403);
    expect((await stack.request('GET', `/v1/cashback/source/${source}`, { headers: as(sourceToken) })).status).toBe(200);
    expect((await stack.request('GET', '/v1/cashback/source/someone-else', { headers: as(sourceToken) })).status).toBe(404);
  });

  it('refuses a tampered and an expired token: 401 from the API, an error on the page', async () => {
    const url = await dashboardUrl('/v1/dashboard-url');
    const token = tokenOf(url);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, tid: randomUUID() })).toString('base64url')}.${signature}`;
    const expired = signDashboardToken({ tenantId, kind: 'intents', exp: Math.floor(Date.now() / 1000) - 1 }, SECRET);
    const otherKey = signDashboardToken({ tenantId, kind: 'intents', exp: Math.floor(Date.now() / 1000) + 600 }, 'x'.repeat(64));
    for (const [bad, message] of [
      [forged, 'Invalid dashboard token'],
      [otherKey, 'Invalid dashboard token'],
      [expired, 'The dashboard link has expired: ask for a new one'],
    ] as const) {
      const res = await stack.request('POST', '/v1/intents/search', { headers: { authorization: `Dashboard ${bad}` }, body: {} });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ error: true, name: 'Unauthorized', message });
      expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
      const events = await fetch(`${stack.baseUrl}/v1/intents/events?token=${bad}`);
      expect(events.status).toBe(401);
      await events.body?.cancel();
      const page = await open(`${stack.baseUrl}/dashboard?token=${bad}`);
      await page.waitForSelector('#fatal');
      expect(await page.$eval('#fatal', (e) => e.textContent)).toBe(message);
      expect(await page.$('#intents')).toBeNull();
    }
  });

  it('lists the tenant’s intents and shows a new one and a cancellation live', async () => {
    const before = await createIntent();
    const page = await open(await dashboardUrl('/v1/dashboard-url'));
    await page.waitForSelector(`#intents tr[data-intent-id="${before}"]`);
    await page.waitForSelector('.live[data-state="live"]');
    const fresh = await createIntent({ wallet: randomWallet() });
    const row = await page.waitForSelector(`#intents tr[data-intent-id="${fresh}"][data-status="pending"]`);
    expect((await rowIds(page))[0]).toBe(fresh);
    expect(await row!.evaluate((r) => r.textContent)).toContain('1000000000000000000');
    expect((await stack.request('POST', `/v1/intent/${fresh}/cancel`, { key })).status).toBe(200);
    await page.waitForSelector(`#intents tr[data-intent-id="${fresh}"][data-status="cancelled"]`);
    // No key anywhere in the page or its address.
    expect(await page.content()).not.toContain(key);
    expect(page.url()).not.toContain(key);
  });

  it('filters by status and by wallet', async () => {
    const wallet = randomWallet();
    const pending = await createIntent({ wallet });
    const cancelled = await createIntent({ wallet });
    expect((await stack.request('POST', `/v1/intent/${cancelled}/cancel`, { key })).status).toBe(200);
    const page = await open(await dashboardUrl('/v1/dashboard-url'));
    await page.waitForSelector(`#intents tr[data-intent-id="${cancelled}"]`);
    await page.click('button[data-status="cancelled"]');
    await page.waitForFunction(
      (p) => !document.querySelector(`#intents tr[data-intent-id="${p}"]`) && document.querySelector('#intents')?.getAttribute('aria-busy') === 'false',
      {},
      pending,
    );
    const statuses = await page.$$eval('#intents tbody tr', (rows) => rows.map((r) => r.getAttribute('data-status')));
    expect(statuses.length).toBeGreaterThan(0);
    expect(new Set(statuses)).toEqual(new Set(['cancelled']));
    expect(await rowIds(page)).toContain(cancelled);

    await page.click('button[data-status="all"]');
    await page.type('#wallet', wallet);
    await page.click('form[role="search"] button[type="submit"]');
    await page.waitForFunction(
      () => document.querySelectorAll('#intents tbody tr').length === 2 && document.querySelector('#intents')?.getAttribute('aria-busy') === 'false',
    );
    expect(await rowIds(page)).toEqual([cancelled, pending]);
    await page.$eval('#wallet', (e) => ((e as HTMLInputElement).value = ''));
    await page.type('#wallet', 'not-a-wallet');
    await page.click('form[role="search"] button[type="submit"]');
    await page.waitForFunction(() => document.querySelector('#wallet-problem')?.textContent?.includes('0x and 40 hex digits'));
  });

  it('pages with the cursor', async () => {
    const wallet = randomWallet();
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) ids.push(await createIntent({ wallet }));
    const page = await open(await dashboardUrl('/v1/dashboard-url'));
    await page.waitForSelector(`#intents tr[data-intent-id="${ids[24]}"]`);
    await page.type('#wallet', wallet);
    await page.click('form[role="search"] button[type="submit"]');
    await page.waitForFunction(
      () => document.querySelectorAll('#intents tbody tr').length === 20 && document.querySelector('#intents')?.getAttribute('aria-busy') === 'false',
    );
    const first = await rowIds(page);
    expect(first).toEqual(ids.slice(5).reverse());
    await page.click('#next-page');
    await page.waitForFunction(
      () =>
        document.querySelector('#page-number')?.textContent === 'Page 2' &&
        document.querySelector('#intents')?.getAttribute('aria-busy') === 'false' &&
        document.querySelectorAll('#intents tbody tr').length === 5,
    );
    expect(await rowIds(page)).toEqual(ids.slice(0, 5).reverse());
    expect(await page.$eval('#next-page', (b) => (b as HTMLButtonElement).disabled)).toBe(true);
    await page.click('#prev-page');
    await page.waitForFunction(
      () =>
        document.querySelector('#page-number')?.textContent === 'Page 1' &&
        document.querySelector('#intents')?.getAttribute('aria-busy') === 'false' &&
        document.querySelectorAll('#intents tbody tr').length === 20,
    );
    expect(await rowIds(page)).toEqual(first);
  });

  it('shows a source’s balances and requests a payout, which then appears', async () => {
    const done = await createIntent({ wallet: randomWallet() });
    expect((await stack.request('POST', `/v1/intent/${done}/cancel`, { key })).status).toBe(200);
    const page = await open(await dashboardUrl(`/v1/source/${source}/dashboard-url`));
    // Amounts exactly as the ledger holds them.
    await page.waitForFunction(() => document.querySelector('#balances tr[data-asset="ETH"] td:nth-child(3)')?.textContent === '0.623456789012345678');
    expect(await page.$eval('#balances tr[data-asset="USDC"] td:nth-child(3)', (e) => e.textContent)).toBe('20.5');
    // USDC counts $1; ETH needs a chain price, which this stack has none of.
    expect(await page.$eval('#estimated-usd', (e) => e.textContent)).toBe('$20.5');
    await page.waitForSelector('#no-payouts');
    await page.waitForSelector('#intents');

    await page.type('#payout-address', 'nope');
    await page.click('#request-payout');
    await page.waitForFunction(() => document.querySelector('#payout-message')?.textContent?.includes('0x and 40 hex digits'));
    await page.$eval('#payout-address', (e) => ((e as HTMLInputElement).value = ''));
    await page.type('#payout-address', PAYEE);
    await page.click('#request-payout');
    await page.waitForFunction(() => document.querySelectorAll('#payouts tbody tr').length === 2);
    expect(await page.$eval('#payout-message', (e) => e.textContent)).toBe('Payout requested: 2 payouts');
    const payouts = await page.$$eval('#payouts tbody tr', (rows) => rows.map((r) => [...r.querySelectorAll('td')].slice(1, 4).map((td) => td.textContent)));
    expect(payouts.sort()).toEqual([
      ['1', 'ETH', '0.623456789012345678'],
      ['1', 'USDC', '20.5'],
    ]);
    await page.waitForFunction(() => document.querySelector('#balances tr[data-asset="ETH"] td:nth-child(3)')?.textContent === '0');
    mkdirSync(join(ROOT, 'docs'), { recursive: true });
    // The picture in docs/api/dashboard.md: refreshed with DASHBOARD_SCREENSHOT=1, else kept out of the tree.
    const shot = process.env.DASHBOARD_SCREENSHOT === '1' ? join(ROOT, 'docs', 'dashboard.png') : join(tmpdir(), `tradeinfra-dashboard-${process.pid}.png`);
    await page.screenshot({ path: shot, fullPage: true });
    expect(statSync(shot).size).toBeGreaterThan(10_000);
    const api = await stack.request('GET', `/v1/cashback/source/${source}/payouts`, { key });
    expect(api.status).toBe(200);
    expect((api.body as { address: string; status: string }[]).map((p) => [p.address.toLowerCase(), p.status])).toEqual([
      [PAYEE, 'PENDING'],
      [PAYEE, 'PENDING'],
    ]);
    // A second request finds nothing to pay: the page says so.
    await page.click('#request-payout');
    await page.waitForFunction(() => document.querySelector('#payout-message.error')?.textContent?.includes('no unclaimed PENDING entries'));
  });

  it('the API reference at /docs shows the examples of an operation (POST /v1/intent): request, answer and main error', async () => {
    const page = await open(`${stack.baseUrl}/docs`);
    await page.waitForSelector('#operations-default-post_v1_intent, [id$="post_v1_intent"]', { timeout: 30_000 });
    await page.click('[id$="post_v1_intent"] .opblock-summary');
    // The request example (Merkle's fields), the 201 record with Merkle's fields and the 400's body.
    await page.waitForFunction(
      () => {
        const text = document.querySelector('[id$="post_v1_intent"]')?.textContent ?? '';
        return text.includes('https://signer.example.com/sign') && text.includes('createdAtMs') && text.includes('must be wei as a decimal integer string');
      },
      { timeout: 30_000 },
    );
  });
});
