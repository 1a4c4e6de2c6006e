import { readFileSync } from 'node:fs';
import { randomBytes, randomUUID } from 'node:crypto';
import { ErrorBodySchema, FieldIssuesSchema, IntentEventSchema, type IntentEvent, type IntentRecord } from '@tradeinfra/contracts';
import { executorDeployData, signBuyIntent } from '@tradeinfra/executor';
import { devWallet, eventually, freePort, HardhatNode, LocalDex, mined } from '@tradeinfra/test-support';
import { id as keccakText, MaxUint256, Wallet, ZeroAddress } from 'ethers';
import { OPENAPI_FILE, ROUTES } from '../../apps/gateway/src/openapi/openapi.js';
import { LaunchDriver } from './execution-support.js';
import { intentBody, randomWallet, Stack, TOKEN, WALLET, type HttpResponse, type RequestOptions } from './harness.js';

/**
 * The wire contract: every route of the OpenAPI route table is driven over HTTP, and every answer
 * (success and error) is parsed with the schema the document gives for its status: the response
 * schemas of `packages/contracts` (strict: an unknown field fails), or the error body. A status
 * the route table does not list fails too. Intent events are read from the live stream and
 * parsed with the notification schema; one intent is launched on a local chain, so the record's
 * `launch` is checked filled in as well as null.
 */
const CHAIN_ID = 31337;
const ETH = 10n ** 18n;
const SUPPLY = 10n ** 27n;

describe('the wire contract: every route answers what the OpenAPI document says', () => {
  let node: HardhatNode;
  let dex: LocalDex;
  let stack: Stack;
  let executor: string;
  let key: string;
  let admin: string;
  let reader: string;
  const tenant = `tenant-${randomUUID()}`;
  const source = `src-${randomBytes(4).toString('hex')}`;
  const relayer = devWallet(19);
  const wallet = devWallet(3);
  /** `METHOD /template status` of every answer checked. */
  const checked = new Set<string>();

  /** The request, its answer checked against the route table; `expected` asserts its status. */
  async function call<T = any>(method: string, template: string, path: string, options: RequestOptions, expected?: number): Promise<HttpResponse<T>> {
    const res = await stack.request<T>(method, path, options);
    conform(method, template, res);
    if (expected !== undefined)
      expect(`${method} ${path} → ${res.status} ${res.text.slice(0, 300)}`).toBe(`${method} ${path} → ${expected} ${res.text.slice(0, 300)}`);
    return res;
  }

  function conform(method: string, template: string, res: HttpResponse): void {
    const route = ROUTES.find((r) => r.method === method.toLowerCase() && r.path === template);
    if (!route) throw new Error(`${method} ${template} is not in the route table`);
    const where = `${method} ${template} → ${res.status}`;
    const type = res.headers.get('content-type') ?? '';
    const documented = route.responses[res.status];
    if (documented) {
      const contentType = documented.contentType ?? 'application/json';
      expect(`${where}: ${type.split(';')[0]}`).toBe(`${where}: ${contentType}`);
      const parsed = documented.schema!.safeParse(contentType === 'application/json' ? JSON.parse(res.text) : res.text);
      if (!parsed.success)
        throw new Error(`${where}: the answer does not match its schema: ${JSON.stringify(parsed.error.issues, null, 1)}\n${res.text.slice(0, 2000)}`);
    } else {
      expect(`${where} documented: ${route.errors.includes(res.status)}`).toBe(`${where} documented: true`);
      expect(`${where}: ${type.split(';')[0]}`).toBe(`${where}: application/json`);
      const body = ErrorBodySchema.parse(JSON.parse(res.text));
      if (body.name === 'ValidationError') FieldIssuesSchema.parse(body.details);
    }
    checked.add(`${method} ${template} ${res.status}`);
  }

  beforeAll(async () => {
    node = await HardhatNode.start({ chainId: CHAIN_ID });
    dex = await LocalDex.deploy(node);
    await node.rpc.call('evm_setAutomine', [false]);
    executor = (await mined(node, dex.owner, null, executorDeployData(dex.router, dex.weth))).contractAddress!;
    stack = await Stack.start({
      CHAIN_IDS: String(CHAIN_ID),
      RPC_URL_31337: node.url,
      HARDFORK_31337: 'prague',
      DEX_FACTORY_31337: dex.factory,
      DEX_ROUTER_31337: dex.router,
      WRAPPED_NATIVE_31337: dex.weth,
      EXECUTOR_31337: executor,
      RELAYER_KEY_31337: relayer.privateKey,
      // A chain whose node is down: the simulation's 502.
      RPC_URL_56: `http://127.0.0.1:${await freePort()}`,
      LAUNCH_POLL_INTERVAL_MS: '100',
      EXPIRY_SWEEP_INTERVAL_MS: '100',
    });
    key = await stack.createKey({ tenant });
    admin = await stack.createKey({ scopes: ['admin'] });
    reader = await stack.createKey({ tenant, scopes: ['intents:read'] });
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
    await node?.stop();
  });

  it('exits: create (read and cancelled as an intent), and its errors', async () => {
    const exit = {
      chainId: CHAIN_ID,
      wallet: WALLET,
      tokenAddress: TOKEN,
      amount: '1000000000000000000000',
      entryPrice: '100000000000',
      takeProfit: 2,
      stopLoss: 0.5,
      expiry: Math.floor(Date.now() / 1000) + 3600,
      webhookUrl: 'https://signer.example.com/sign',
    };
    const created = await call<IntentRecord>('POST', '/v1/exit', '/v1/exit', { key, body: exit }, 201);
    expect(created.body).toMatchObject({ kind: 'exit', status: 'pending', exit: { takeProfit: 2, stopLoss: 0.5, entryPrice: '100000000000' } });
    await call('GET', '/v1/intent/{id}', `/v1/intent/${created.body.id}`, { key }, 200);
    await call('POST', '/v1/exit', '/v1/exit', { key, body: { ...exit, takeProfit: undefined, stopLoss: undefined } }, 400);
    await call('POST', '/v1/exit', '/v1/exit', { key, body: { ...exit, amount: 'lots' } }, 400);
    // An Idempotency-Key outside printable ASCII is refused before anything is stored, on both create routes.
    for (const path of ['/v1/exit', '/v1/intent']) {
      const body = path === '/v1/exit' ? exit : intentBody({ chainId: CHAIN_ID });
      const refused = await call<{ details: unknown }>('POST', path, path, { key, body, headers: { 'idempotency-key': 'two words' } }, 400);
      expect(refused.body.details).toEqual([{ path: 'headers.idempotency-key', message: 'must be 1 to 255 printable ASCII characters' }]);
    }
    await call('POST', '/v1/exit', '/v1/exit', { key: null, body: exit }, 401);
    await call('POST', '/v1/exit', '/v1/exit', { key: reader, body: exit }, 403);
  });

  it('intents: create, batch, fetch, search, cancel, bulk cancel, the signing secret, and their errors', async () => {
    const created = await call<IntentRecord>('POST', '/v1/intent', '/v1/intent', { key, body: intentBody({ chainId: CHAIN_ID, maxSellTax: 0.25 }) }, 201);
    const { id } = created.body;
    const idem = randomUUID();
    await call('POST', '/v1/intent', '/v1/intent', { key, body: intentBody({ chainId: CHAIN_ID }), headers: { 'idempotency-key': idem } }, 201);
    await call('POST', '/v1/intent', '/v1/intent', { key, body: intentBody({ chainId: CHAIN_ID, bribe: '7' }), headers: { 'idempotency-key': idem } }, 409);
    await call('POST', '/v1/intent', '/v1/intent', { key, body: intentBody({ chainId: CHAIN_ID, buyAmount: 'lots' }) }, 400);
    await call('POST', '/v1/intent', '/v1/intent', { key: null, body: intentBody() }, 401);
    await call('POST', '/v1/intent', '/v1/intent', { key: reader, body: intentBody() }, 403);
    await call(
      'POST',
      '/v1/intent',
      '/v1/intent',
      { key, rawBody: `{"pad":"${'x'.repeat(128 * 1024)}"}`, headers: { 'content-type': 'application/json' } },
      413,
    );

    await call('GET', '/v1/intent/{id}', `/v1/intent/${id}`, { key: reader }, 200);
    await call('GET', '/v1/intent/{id}', `/v1/intent/${randomUUID()}`, { key }, 404);
    await call('GET', '/v1/intent/{id}', '/v1/intent/not-a-uuid', { key }, 400);

    const batch = await call<IntentRecord[]>(
      'POST',
      '/v1/intents',
      '/v1/intents',
      { key, body: [intentBody({ chainId: CHAIN_ID }), intentBody({ chainId: CHAIN_ID })] },
      201,
    );
    await call('POST', '/v1/intents', '/v1/intents', { key, body: [] }, 400);
    await call(
      'POST',
      '/v1/intents/search',
      '/v1/intents/search',
      { key: reader, body: { addresses: [created.body.wallet], status: ['pending', 'cancelled'], limit: 1 } },
      200,
    );
    await call('POST', '/v1/intents/search', '/v1/intents/search', { key, body: { addresses: [] } }, 400);

    await call('POST', '/v1/intent/{id}/cancel', `/v1/intent/${id}/cancel`, { key }, 200);
    await call('POST', '/v1/intent/{id}/cancel', `/v1/intent/${id}/cancel`, { key }, 409);
    const [a, b] = batch.body.map((i) => i.id);
    await call('DELETE', '/v1/intents', '/v1/intents', { key, body: { ids: [a, id, randomUUID()] } }, 200);
    await call('POST', '/v1/intents/cancel', '/v1/intents/cancel', { key, body: { ids: [b] } }, 200);
    await call('POST', '/v1/intents/cancel', '/v1/intents/cancel', { key, body: { ids: [b, b] } }, 400);
    await call('DELETE', '/v1/intents', '/v1/intents', { key: reader, body: { ids: [b] } }, 403);

    await call('GET', '/v1/intents/notifications/secret', '/v1/intents/notifications/secret', { key }, 200);
    await call('POST', '/v1/intents/notifications/secret/rotate', '/v1/intents/notifications/secret/rotate', { key }, 200);
    await call('GET', '/v1/intents/notifications/secret', '/v1/intents/notifications/secret', { key: reader }, 403);

    // The rate limit's 429.
    const limited = await stack.createKey({ rateLimitPerSecond: 1 });
    const burst = await Promise.all(Array.from({ length: 5 }, () => call('GET', '/v1/intent/{id}', `/v1/intent/${id}`, { key: limited })));
    expect(burst.map((r) => r.status)).toContain(429);
  });

  it('a wallet intent bought at launch: its record with the launch, and every event of the stream, match the notification schema', async () => {
    const events: IntentEvent[] = [];
    const abort = new AbortController();
    const stream = await fetch(`${stack.baseUrl}/v1/intents/events`, { headers: { 'x-api-key': key }, signal: abort.signal });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    checked.add('GET /v1/intents/events 200');
    const reading = (async () => {
      const reader = stream.body!.getReader();
      const decoder = new TextDecoder();
      let buffer = '';
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          buffer += decoder.decode(value, { stream: true });
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const frame = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const data = frame.split('\n').find((line) => line.startsWith('data: '));
            if (data) events.push(IntentEventSchema.parse(JSON.parse(data.slice(6))));
          }
        }
      } catch (err) {
        if (!abort.signal.aborted) throw err;
      }
    })();

    const token = await dex.deployToken('PlainToken', [SUPPLY]);
    await mined(node, wallet.address, dex.weth, dex.a.WETH9!.iface.encodeFunctionData('deposit', []), ETH);
    await mined(node, wallet.address, dex.weth, dex.a.WETH9!.iface.encodeFunctionData('approve', [executor, MaxUint256]));
    const body = {
      chainId: CHAIN_ID,
      wallet: wallet.address,
      tokenAddress: token,
      bribe: '1000',
      buyAmount: (ETH / 100n).toString(),
      expiry: Math.floor(Date.now() / 1000) + 3600,
      gasTip: '1',
      nonce: '7',
    };
    const signature = await signBuyIntent(
      wallet,
      {
        wallet: wallet.address,
        token,
        amount: ETH / 100n,
        bribe: 1000n,
        expiry: BigInt(body.expiry),
        minIn: 0n,
        minOut: 0n,
        feeBps: 0,
        feeRecipient: ZeroAddress,
        firstOrFail: false,
        nonce: 7n,
      },
      { chainId: CHAIN_ID, executor },
    );
    const created = await call<IntentRecord>('POST', '/v1/wallet/intent', '/v1/wallet/intent', { key, body: { ...body, signature } }, 201);
    expect(created.body).toMatchObject({ kind: 'wallet', launch: null });
    await call('POST', '/v1/wallet/intent', '/v1/wallet/intent', { key, body: { ...body, nonce: '8', signature } }, 400);

    const driver = new LaunchDriver(stack, node, dex, () => key, SUPPLY / 10n);
    await driver.launchAndSettle(token, [created.body], ETH);
    const bought = await call<IntentRecord>('GET', '/v1/intent/{id}', `/v1/intent/${created.body.id}`, { key }, 200);
    expect(bought.body.status).toBe('completed');
    expect(bought.body.launch).toMatchObject({ type: expect.any(String), txHash: expect.stringMatching(/^0x/) });

    await eventually('the completion on the event stream', () => events.some((e) => e.intentId === created.body.id && e.type === 'intent_completed'), 15_000);
    abort.abort();
    await reading;
    expect(events.filter((e) => e.intentId === created.body.id).map((e) => e.type)).toEqual(expect.arrayContaining(['intent_created', 'intent_completed']));
  });

  it('simulation: a result, a bad body, a chain whose node is down', async () => {
    const from = devWallet(5).address;
    const to = devWallet(6).address;
    await call(
      'POST',
      '/v1/simulate',
      '/v1/simulate',
      {
        key,
        body: {
          chainId: CHAIN_ID,
          calls: [
            { from, to, value: '1000' },
            { from, to: dex.weth, data: '0xdeadbeef' },
          ],
        },
      },
      200,
    );
    await call('POST', '/v1/simulate', '/v1/simulate', { key, body: { chainId: CHAIN_ID, calls: [] } }, 400);
    await call('POST', '/v1/simulate', '/v1/simulate', { key, body: { chainId: 56, calls: [{ from, to }] } }, 502);
  });

  it('payouts: sources, entries, cashback, payout requests and settlement, dashboard URLs', async () => {
    await call('POST', '/v1/sources', '/v1/sources', { key: admin, body: { id: source, tenant } }, 201);
    await call('POST', '/v1/sources', '/v1/sources', { key: admin, body: { id: source, tenant: `nobody-${randomUUID()}` } }, 404);
    await call('POST', '/v1/sources', '/v1/sources', { key, body: { id: source, tenant } }, 403);
    const tx = `0x${randomBytes(32).toString('hex')}`;
    const event = (amount: string, chainId = 1) => ({
      id: randomUUID(),
      chainId,
      txHash: tx,
      sourceId: source,
      generatedBySourceId: source,
      asset: 'ETH',
      amount,
      type: 'mev',
      time: new Date().toISOString(),
    });
    const first = event('0.5');
    await call('POST', '/v1/payouts/entries', '/v1/payouts/entries', { key: admin, body: first }, 201);
    await call('POST', '/v1/payouts/entries', '/v1/payouts/entries', { key: admin, body: first }, 200);
    await call('POST', '/v1/payouts/entries', '/v1/payouts/entries', { key: admin, body: { ...first, amount: '-1' } }, 400);
    await call('POST', '/v1/payouts/entries', '/v1/payouts/entries', { key: admin, body: event('1.25', 137) }, 201);

    await call('GET', '/v1/payouts/tx/{hash}', `/v1/payouts/tx/${tx}`, { key }, 200);
    await call('GET', '/v1/payouts/tx/{hash}', '/v1/payouts/tx/0x12', { key }, 400);
    await call('GET', '/v1/payouts', `/v1/payouts?sourceId=${source}&status=PENDING&chainId=1&limit=1`, { key }, 200);
    await call('GET', '/v1/payouts', '/v1/payouts?limit=0', { key }, 400);
    await call('GET', '/v1/cashback/source/{id}', `/v1/cashback/source/${source}`, { key }, 200);
    await call('GET', '/v1/cashback/source/{id}', '/v1/cashback/source/unknown-source', { key }, 404);

    const address = randomWallet();
    const payout = await call<{ id: string }>(
      'POST',
      '/v1/cashback/source/{id}/payout',
      `/v1/cashback/source/${source}/payout`,
      { key, body: { address, chainId: 1, asset: 'ETH' } },
      201,
    );
    await call('POST', '/v1/cashback/source/{id}/payout', `/v1/cashback/source/${source}/payout`, { key, body: { address, chainId: 1, asset: 'ETH' } }, 409);
    await call('POST', '/v1/cashback/source/{id}/payout', `/v1/cashback/source/${source}/payout`, { key, body: { address } }, 201);
    await call('POST', '/v1/cashback/source/{id}/payout', `/v1/cashback/source/${source}/payout`, { key, body: { address, chainId: 1 } }, 400);
    await call('GET', '/v1/cashback/source/{id}/payouts', `/v1/cashback/source/${source}/payouts`, { key }, 200);
    await call('GET', '/v1/cashback/payout/{id}', `/v1/cashback/payout/${payout.body.id}`, { key }, 200);
    await call('GET', '/v1/cashback/payout/{id}', `/v1/cashback/payout/${randomUUID()}`, { key }, 404);
    const settle = `/v1/cashback/payout/${payout.body.id}/status`;
    await call(
      'POST',
      '/v1/cashback/payout/{id}/status',
      settle,
      { key: admin, body: { status: 'TX_PENDING', txHash: `0x${randomBytes(32).toString('hex')}` } },
      200,
    );
    await call('POST', '/v1/cashback/payout/{id}/status', settle, { key: admin, body: { status: 'TX_PENDING' } }, 400);
    await call('POST', '/v1/cashback/payout/{id}/status', settle, { key: admin, body: { status: 'TX_FAILED' } }, 200);
    await call('POST', '/v1/cashback/payout/{id}/status', settle, { key: admin, body: { status: 'PAID' } }, 409);

    await call('GET', '/v1/dashboard-url', '/v1/dashboard-url', { key }, 200);
    await call('GET', '/v1/source/{id}/dashboard-url', `/v1/source/${source}/dashboard-url`, { key }, 200);
    await call('GET', '/v1/source/{id}/dashboard-url', '/v1/source/not-mine/dashboard-url', { key }, 404);
  });

  it('the routes without a key: health, readiness, services, metrics, this document and its pages', async () => {
    await call('GET', '/health', '/health', {}, 200);
    await call('GET', '/ready', '/ready', {}, 200);
    await call('GET', '/health/services', '/health/services', {}, 200);
    await call('GET', '/metrics', '/metrics', {}, 200);
    const document = await call('GET', '/openapi.json', '/openapi.json', {}, 200);
    expect(document.body).toEqual(JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')));
    await call('GET', '/docs', '/docs', {}, 200);
    await call('GET', '/docs/init.js', '/docs/init.js', {}, 200);
    const page = await call('GET', '/dashboard', '/dashboard', {});
    expect([200, 503]).toContain(page.status);
  });

  it('a service down: 503 with the error body', async () => {
    await stack.stopSimulation();
    try {
      await call('POST', '/v1/simulate', '/v1/simulate', { key, body: { chainId: CHAIN_ID, calls: [{ from: devWallet(5).address, to: TOKEN }] } }, 503);
    } finally {
      await stack.startSimulation();
    }
  });

  it('order flow: the wallet RPC, the hint stream and the searchers’ endpoint, and their errors', async () => {
    const flow = `flow-${randomBytes(4).toString('hex')}`;
    await call('POST', '/v1/sources', '/v1/sources', { key: admin, body: { id: flow, tenant } }, 201);
    const chainId = { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] };
    const rpc = (query: string, options: RequestOptions, status: number) => call('POST', '/v1/rpc', `/v1/rpc?${query}`, options, status);
    const answer = await rpc(`source=${flow}&chainId=${CHAIN_ID}&key=${key}`, { body: chainId }, 200);
    expect(answer.body).toEqual({ jsonrpc: '2.0', id: 1, result: `0x${CHAIN_ID.toString(16)}` });
    await rpc(`source=${flow}&chainId=${CHAIN_ID}`, { key, body: [chainId, { ...chainId, id: 2, method: 'eth_sign' }] }, 200);
    await rpc(`source=${flow}&chainId=${CHAIN_ID}`, { key: null, body: chainId }, 401);
    await rpc(`source=${flow}&chainId=${CHAIN_ID}`, { key: reader, body: chainId }, 403);
    await rpc(`source=not-${flow}&chainId=${CHAIN_ID}`, { key, body: chainId }, 404);
    await rpc(`chainId=${CHAIN_ID}`, { key, body: chainId }, 400);

    const abort = new AbortController();
    const stream = await fetch(`${stack.baseUrl}/v1/mev/stream?chainId=${CHAIN_ID}`, { signal: abort.signal });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    checked.add('GET /v1/mev/stream 200');
    abort.abort();
    await call('GET', '/v1/mev/stream', '/v1/mev/stream?chainId=x', {}, 400);

    const searcher = Wallet.createRandom();
    const bundle = { version: 'v0.1', inclusion: { block: '0x1' }, body: [{ hash: `0x${'ab'.repeat(32)}` }, { tx: '0x02', canRevert: false }] };
    const body = JSON.stringify({ params: [bundle, {}], method: 'mev_simBundle', id: 69, jsonrpc: '2.0' });
    const signature = `${searcher.address}:${await searcher.signMessage(keccakText(body))}`;
    const headers = { 'content-type': 'application/json', 'x-flashbots-signature': signature };
    const sim = await call('POST', '/v1/mev', '/v1/mev', { rawBody: body, headers }, 200);
    expect(sim.body.error).toMatchObject({ code: -32000 });
    await call('POST', '/v1/mev', '/v1/mev', { rawBody: `${body} `, headers }, 401);
    await call('POST', '/v1/mev', '/v1/mev', { body: JSON.parse(body) }, 401);
  });

  it('has checked a success of every route in the table', () => {
    const missing = ROUTES.filter((r) => ![...checked].some((c) => c.startsWith(`${r.method.toUpperCase()} ${r.path} 2`))).map(
      (r) => `${r.method.toUpperCase()} ${r.path}`,
    );
    expect(missing).toEqual([]);
  });
});
