import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type IncomingHttpHeaders, type Server as HttpServer } from 'node:http';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { eventually, HardhatNode, within } from '@tradeinfra/test-support';
import {
  ApiError,
  ConnectionError,
  TradeInfraClient,
  verifyWebhook,
  WebhookVerificationError,
  type ClientOptions,
  type IntentEvent,
  type RetryInfo,
} from '@tradeinfra/sdk';
import { randomWallet, Stack, TOKEN } from './harness.js';

/**
 * A TCP proxy in front of the gateway that can misbehave on purpose: drop a connection after
 * the gateway answered (the request was applied, the client never hears it), or cut every open
 * connection (an event stream dropping).
 */
class FlakyProxy {
  /** What to do with each new connection, in order; then connections pass through. */
  readonly plan: Array<'drop-answer' | 'reset'> = [];
  readonly sockets = new Set<Socket>();
  connections = 0;
  private server!: Server;
  url = '';

  constructor(private readonly targetPort: number) {}

  async start(): Promise<this> {
    this.server = createServer((client) => {
      this.connections++;
      this.sockets.add(client);
      client.on('close', () => this.sockets.delete(client));
      client.on('error', () => undefined);
      const action = this.plan.shift();
      if (action === 'reset') {
        client.once('data', () => client.resetAndDestroy());
        return;
      }
      const upstream = connect(this.targetPort, '127.0.0.1');
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
      client.pipe(upstream);
      if (action === 'drop-answer') {
        // The gateway got the whole request and answers; the client gets a reset instead.
        upstream.once('data', () => {
          client.resetAndDestroy();
          upstream.destroy();
        });
      } else {
        upstream.pipe(client);
      }
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Cuts every open connection (resets them). */
  cutAll(): void {
    for (const socket of this.sockets) socket.resetAndDestroy();
  }

  async close(): Promise<void> {
    this.cutAll();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** A webhook receiver keeping each request's raw headers and body, as a customer's server gets them. */
class RawSink {
  readonly received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  private server!: HttpServer;
  url = '';

  async start(): Promise<this> {
    this.server = createHttpServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

const expiry = () => Math.floor(Date.now() / 1000) + 3600;

describe('@tradeinfra/sdk against the running suite', () => {
  let stack: Stack;
  let node: HardhatNode;
  let gatewayPort: number;
  const closers: Array<() => Promise<void> | void> = [];

  beforeAll(async () => {
    // A local chain the simulation service reads (chain 31337 is not one the intent service executes on).
    node = await HardhatNode.start({ chainId: 31337 });
    stack = await Stack.start({
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      OUTBOX_POLL_INTERVAL_MS: '100',
      RPC_URL_31337: node.url,
    });
    gatewayPort = Number(new URL(stack.baseUrl).port);
  });
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
    await stack?.close();
    await node?.stop();
  });

  async function client(options: Partial<ClientOptions> & { key?: string } = {}): Promise<TradeInfraClient> {
    const apiKey = options.key ?? (await stack.createKey());
    return new TradeInfraClient({ baseUrl: stack.baseUrl, apiKey, ...options });
  }

  async function proxy(): Promise<FlakyProxy> {
    const p = await new FlakyProxy(gatewayPort).start();
    closers.push(() => p.close());
    return p;
  }

  it('creates, reads, searches page by page and cancels intents', async () => {
    const sdk = await client();
    const wallet = randomWallet();
    const created = [];
    for (let i = 0; i < 5; i++) {
      created.push(
        await sdk.intents.create({
          chainId: 1,
          wallet,
          tokenAddress: TOKEN,
          bribe: 1000n,
          buyAmount: 10n ** 18n + BigInt(i),
          expiry: expiry(),
          minOut: 2n ** 200n,
        }),
      );
    }
    expect(created[0]).toMatchObject({
      status: 'pending',
      bribe: '1000',
      buyAmount: '1000000000000000000',
      minOut: (2n ** 200n).toString(),
      maxBuyTax: null,
      kind: 'bot',
    });
    expect(await sdk.intents.get(created[2]!.id)).toEqual(created[2]);

    const first = await sdk.intents.search({ addresses: [wallet], limit: 2 });
    expect(first.items.map((i) => i.id)).toEqual([created[4]!.id, created[3]!.id]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const pages = [];
    for await (const page of sdk.intents.searchPages({ addresses: [wallet], limit: 2 })) pages.push(page.items.length);
    expect(pages).toEqual([2, 2, 1]);
    const all = [];
    for await (const intent of sdk.intents.searchAll({ addresses: [wallet.toUpperCase().replace('0X', '0x')], limit: 2 })) all.push(intent.id);
    expect(all).toEqual(created.map((i) => i.id).reverse());

    const cancelled = await sdk.intents.cancel(created[0]!.id);
    expect(cancelled).toMatchObject({ id: created[0]!.id, status: 'cancelled' });
    const left = [];
    for await (const intent of sdk.intents.searchAll({ addresses: [wallet] })) left.push(intent.id);
    expect(left).not.toContain(created[0]!.id);
    const onlyCancelled = await sdk.intents.search({ addresses: [wallet], status: ['cancelled'] });
    expect(onlyCancelled).toEqual({ items: [cancelled], nextCursor: null });
  });

  it('creates a batch of intents and cancels several at once', async () => {
    const sdk = await client();
    const wallet = randomWallet();
    const intent = (i: number) => ({ chainId: 1, wallet, tokenAddress: TOKEN, bribe: 1000n, buyAmount: 10n ** 18n + BigInt(i), expiry: expiry() });
    const batch = await sdk.intents.createBatch([intent(0), intent(1)]);
    expect(batch.map((i) => i.buyAmount)).toEqual(['1000000000000000000', '1000000000000000001']);
    const results = await sdk.intents.cancelMany([batch[1]!.id, batch[0]!.id]);
    expect(results.map((r) => [r.id, r.status])).toEqual([
      [batch[1]!.id, 'cancelled'],
      [batch[0]!.id, 'cancelled'],
    ]);
  });

  it('retries a create whose answer was lost with the same Idempotency-Key: exactly one intent, and it is the one returned', async () => {
    const p = await proxy();
    p.plan.push('drop-answer');
    const retries: RetryInfo[] = [];
    const sdk = await client({ baseUrl: p.url, onRetry: (info) => retries.push(info), backoff: { baseDelayMs: 50 } });
    const wallet = randomWallet();
    const intent = await sdk.intents.create({ chainId: 1, wallet, tokenAddress: TOKEN, bribe: '1', buyAmount: '5', expiry: expiry() });

    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ method: 'POST', path: '/v1/intent', attempt: 1, status: null, idempotencyKey: expect.any(String) });
    expect(retries[0]!.error).toBeInstanceOf(ConnectionError);
    expect((retries[0]!.error as ConnectionError).sent).toBe(true);
    expect(p.connections).toBe(2);
    const found = await sdk.intents.search({ addresses: [wallet] });
    expect(found.items).toHaveLength(1);
    expect(found.items[0]).toEqual(intent);
  });

  it('retries a create on a reset connection, and never retries a cancel whose answer was lost', async () => {
    const key = await stack.createKey();
    const p = await proxy();
    p.plan.push('reset');
    const sdk = new TradeInfraClient({ baseUrl: p.url, apiKey: key, backoff: { baseDelayMs: 50 } });
    const wallet = randomWallet();
    const intent = await sdk.intents.create(
      { chainId: 1, wallet, tokenAddress: TOKEN, bribe: '1', buyAmount: '5', expiry: expiry() },
      { idempotencyKey: `mine-${randomUUID()}` },
    );
    expect(p.connections).toBe(2);
    expect((await sdk.intents.search({ addresses: [wallet] })).items.map((i) => i.id)).toEqual([intent.id]);

    // A fresh proxy (a new connection): the gateway applies the cancel, the client never hears the answer.
    const q = await proxy();
    q.plan.push('drop-answer');
    const other = new TradeInfraClient({ baseUrl: q.url, apiKey: key, backoff: { baseDelayMs: 50 } });
    const err = await other.intents.cancel(intent.id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err).toMatchObject({ sent: true });
    expect(q.connections).toBe(1); // one attempt only
    expect(await sdk.intents.get(intent.id)).toMatchObject({ status: 'cancelled' }); // it was applied
  });

  it('throws a typed ApiError on a 400 and a 404, with details and the request id, without retrying', async () => {
    const retries: RetryInfo[] = [];
    const sdk = await client({ onRetry: (info) => retries.push(info) });
    const bad = await sdk.intents
      .create({ chainId: 1, wallet: randomWallet(), tokenAddress: TOKEN, bribe: '01', buyAmount: '5', expiry: 1 }, { requestId: 'sdk-test-400' })
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ApiError);
    const e400 = bad as ApiError;
    expect(e400).toMatchObject({ status: 400, name: 'ValidationError', requestId: 'sdk-test-400' });
    expect(e400.fieldIssues.map((i) => i.path).sort()).toEqual(['bribe', 'expiry']);
    expect(e400.message).toMatch(/bribe|expiry/);

    const missing = randomUUID();
    const e404 = (await sdk.intents.get(missing).catch((e: unknown) => e)) as ApiError;
    expect(e404).toBeInstanceOf(ApiError);
    expect(e404).toMatchObject({ status: 404, name: 'NotFound', path: `/v1/intent/${missing}` });
    expect(e404.requestId).toEqual(expect.any(String));

    const e409 = (await sdk.cashback.requestPayout('nope', { address: randomWallet(), chainId: 1, asset: 'ETH' }).catch((e: unknown) => e)) as ApiError;
    expect(e409).toBeInstanceOf(ApiError);
    expect([404, 409]).toContain(e409.status);
    expect(retries).toEqual([]);
  });

  it('waits out a 429 as Retry-After says, then succeeds; a create retried after a 429 keeps its key', async () => {
    const retries: RetryInfo[] = [];
    // One request per second, a bucket of one: of four creates sent at once, at least three are refused at first.
    const key = await stack.createKey({ rateLimitPerSecond: 1 });
    const sdk = await client({ key, maxAttempts: 8, onRetry: (info) => retries.push(info) });
    const wallet = randomWallet();
    const intents = await Promise.all(
      [1, 2, 3, 4].map((n) => sdk.intents.create({ chainId: 1, wallet, tokenAddress: TOKEN, bribe: String(n), buyAmount: '5', expiry: expiry() })),
    );
    expect(retries.length).toBeGreaterThanOrEqual(3);
    for (const retry of retries) {
      expect(retry).toMatchObject({ status: 429, path: '/v1/intent', idempotencyKey: expect.any(String) });
      expect((retry.error as ApiError).name).toBe('RateLimited');
      expect(retry.retryAfterMs).toBeGreaterThanOrEqual(1000);
      expect(retry.delayMs).toBeGreaterThanOrEqual(retry.retryAfterMs!);
    }
    // Each create kept its own key through its retries, and each made exactly one intent.
    const keys = new Set(retries.map((r) => r.idempotencyKey));
    expect(keys.size).toBeLessThanOrEqual(4);
    const found = [];
    for await (const intent of sdk.intents.searchAll({ addresses: [wallet] })) found.push(intent.id);
    expect(found.sort()).toEqual(intents.map((i) => i.id).sort());

    // With retries off, the 429 is the caller's, Retry-After parsed.
    const once = new TradeInfraClient({ baseUrl: stack.baseUrl, apiKey: key, maxAttempts: 1 });
    const answers = await Promise.allSettled([1, 2, 3].map(() => once.intents.search({ addresses: [wallet] })));
    const limited = answers.flatMap((a) => (a.status === 'rejected' ? [a.reason as ApiError] : []));
    expect(limited.length).toBeGreaterThanOrEqual(2);
    for (const err of limited) {
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({ status: 429, name: 'RateLimited' });
      expect(err.retryAfterMs).toBeGreaterThanOrEqual(1000);
    }
  });

  it('iterates the event stream, reconnects after the stream is cut, and stops on break', async () => {
    const p = await proxy();
    const key = await stack.createKey();
    const sdk = new TradeInfraClient({ baseUrl: p.url, apiKey: key });
    const direct = new TradeInfraClient({ baseUrl: stack.baseUrl, apiKey: key });
    const opened: boolean[] = [];
    let notifyOpen: () => void = () => undefined;
    const nextOpen = () => new Promise<void>((resolve) => (notifyOpen = resolve));
    let open = nextOpen();
    const stream = sdk.intents.events({
      backoff: { baseDelayMs: 50 },
      onOpen: ({ reconnected }) => {
        opened.push(reconnected);
        notifyOpen();
      },
    });
    const received: IntentEvent[] = [];
    let last = '';
    let notifyEvent: () => void = () => undefined;
    const waitFor = async (what: string, test: () => boolean) => {
      while (!test()) await within(new Promise<void>((resolve) => (notifyEvent = resolve)), 15_000, what);
    };
    const consuming = (async () => {
      for await (const event of stream) {
        received.push(event);
        notifyEvent();
        if (event.event === 'cancelled' && event.intent.id === last) break;
      }
    })();
    // The first next() opens the connection.
    await within(open, 15_000, 'stream open');
    const wallet = randomWallet();
    const one = await direct.intents.create({ chainId: 1, wallet, tokenAddress: TOKEN, bribe: '1', buyAmount: '5', expiry: expiry() });
    await direct.intents.cancel(one.id);
    await waitFor('created and cancelled of the first intent', () => received.some((e) => e.event === 'cancelled' && e.intent.id === one.id));
    expect(received.filter((e) => e.intent.id === one.id).map((e) => [e.event, e.type])).toEqual([
      ['created', 'intent_created'],
      ['cancelled', 'intent_cancelled'],
    ]);
    expect(received[0]!.intent).toMatchObject({ id: one.id, wallet: one.wallet, status: 'pending' });

    open = nextOpen();
    p.cutAll();
    await within(open, 15_000, 'stream reopened');
    expect(opened).toEqual([false, true]);
    const two = await direct.intents.create({ chainId: 1, wallet, tokenAddress: TOKEN, bribe: '1', buyAmount: '5', expiry: expiry() });
    last = two.id;
    await direct.intents.cancel(two.id);
    await within(consuming, 15_000, 'the loop ends at the second cancel');
    expect(received.filter((e) => e.intent.id === two.id).map((e) => e.event)).toEqual(['created', 'cancelled']);
    // break closed the connection: the proxy holds none open for it any more.
    await eventually('stream connection closed', () => p.sockets.size === 0);
  });

  it('ends the event stream when its AbortSignal aborts, also while waiting for an event', async () => {
    const sdk = await client();
    const controller = new AbortController();
    let opened!: () => void;
    const open = new Promise<void>((resolve) => (opened = resolve));
    const stream = sdk.intents.events({ signal: controller.signal, onOpen: () => opened() });
    const pending = stream.next();
    await within(open, 15_000, 'stream open');
    controller.abort();
    await expect(within(pending, 5_000, 'next() after abort')).resolves.toEqual({ done: true, value: undefined });
  });

  it('verifyWebhook accepts a real notification of the suite and refuses a tampered one or another secret', async () => {
    const sink = await new RawSink().start();
    closers.push(() => sink.close());
    const sdk = await client();
    const intent = await sdk.intents.create({
      chainId: 1,
      wallet: randomWallet(),
      tokenAddress: TOKEN,
      bribe: '1',
      buyAmount: '5',
      expiry: expiry(),
      notificationWebhookUrl: sink.url,
    });
    await sdk.intents.cancel(intent.id);
    const delivery = await eventually(
      'the cancelled notification',
      () => sink.received.find((r) => r.body.includes(intent.id) && r.body.includes('"type":"intent_cancelled"')),
      15_000,
    );
    const secret = await sdk.notifications.secret();
    const event = verifyWebhook<IntentEvent>(secret, delivery.headers, delivery.body);
    expect(event).toMatchObject({ type: 'intent_cancelled', event: 'cancelled', intentId: intent.id, intent: { id: intent.id, status: 'cancelled' } });
    expect(event.id).toBe(delivery.headers['x-notification-id']);

    expect(() => verifyWebhook(secret, delivery.headers, delivery.body.replace('"cancelled"', '"completed"'))).toThrow(WebhookVerificationError);
    const otherSecret = await (await client()).notifications.secret();
    expect(() => verifyWebhook(otherSecret, delivery.headers, delivery.body)).toThrow(/does not match/);
    // A day later the same delivery is a replay.
    expect(() => verifyWebhook(secret, delivery.headers, delivery.body, { now: () => Date.now() + 86_400_000 })).toThrow(/tolerance/);

    // Rotation: the old secret stops verifying new notifications.
    const rotated = await sdk.notifications.rotateSecret();
    expect(rotated).not.toBe(secret);
    expect(await sdk.notifications.secret()).toBe(rotated);
    const next = await sdk.intents.create({
      chainId: 1,
      wallet: randomWallet(),
      tokenAddress: TOKEN,
      bribe: '1',
      buyAmount: '5',
      expiry: expiry(),
      notificationWebhookUrl: sink.url,
    });
    const created = await eventually('the next created notification', () => sink.received.find((r) => r.body.includes(next.id)), 15_000);
    expect(verifyWebhook(rotated, created.headers, created.body)).toMatchObject({ type: 'intent_created', event: 'created' });
    expect(() => verifyWebhook(secret, created.headers, created.body)).toThrow(WebhookVerificationError);
  });

  it('covers the payout and cashback routes with exact amounts', async () => {
    const tenant = `sdk-${randomUUID()}`;
    const admin = await client({ key: await stack.createKey({ scopes: ['admin'] }) });
    const owner = await client({ key: await stack.createKey({ tenant }) });
    const sourceId = `src-${randomUUID().slice(0, 8)}`;
    expect(await admin.sources.register({ id: sourceId, tenant })).toEqual({ id: sourceId, tenant });
    const txHash = `0x${randomUUID().replace(/-/g, '').padEnd(64, 'a')}`;
    const event = {
      id: randomUUID(),
      chainId: 1,
      txHash,
      sourceId,
      asset: 'ETH',
      amount: '123456789.123456789012345678',
      type: 'mev' as const,
      time: new Date(),
    };
    const recorded = await admin.payouts.recordEntry(event);
    expect(recorded.created).toBe(true);
    expect(recorded.entry).toMatchObject({ amount: '123456789.123456789012345678', sourceId, status: 'PENDING', payoutId: '' });
    // Recording the same event again is idempotent.
    expect(await admin.payouts.recordEntry(event)).toEqual({ entry: recorded.entry, created: false });

    expect(await owner.payouts.byTransaction(txHash)).toEqual([recorded.entry]);
    const page = await owner.payouts.list({ sourceId, limit: 1 });
    expect(page.items).toEqual([recorded.entry]);
    const all = [];
    for await (const entry of owner.payouts.listAll({ sourceId, chainId: 1 })) all.push(entry);
    expect(all).toEqual([recorded.entry]);

    const cashback = await owner.cashback.source(sourceId);
    expect(cashback).toMatchObject({ sourceId, entryCount: 1 });
    expect(cashback.balances).toEqual([
      expect.objectContaining({ chainId: 1, asset: 'ETH', claimable: '123456789.123456789012345678', amount: '123456789.123456789012345678' }),
    ]);
    // No chain node here to price ETH: it is named, not guessed.
    expect(cashback).toMatchObject({ estimatedUsd: '0', unpricedAssets: ['ETH'] });

    const address = randomWallet();
    const payout = await owner.cashback.requestPayout(sourceId, { address, chainId: 1, asset: 'ETH' });
    expect(payout).toMatchObject({ sourceId, chainId: 1, asset: 'ETH', amount: '123456789.123456789012345678', status: 'PENDING' });
    expect(payout.address.toLowerCase()).toBe(address); // returned checksummed
    expect(await owner.cashback.payout(payout.id)).toEqual(payout);
    expect(await owner.cashback.sourcePayouts(sourceId)).toEqual([payout]);
    const settleHash = `0x${'b'.repeat(64)}`;
    expect(await admin.cashback.setPayoutStatus(payout.id, { status: 'TX_PENDING', txHash: settleHash })).toMatchObject({
      status: 'TX_PENDING',
      txHash: settleHash,
    });
    expect(await admin.cashback.setPayoutStatus(payout.id, { status: 'PAID' })).toMatchObject({ status: 'PAID', amount: '123456789.123456789012345678' });
    const paid = await owner.cashback.source(sourceId);
    expect(paid.balances[0]).toMatchObject({ paid: '123456789.123456789012345678', claimable: '0' });
    const conflict = (await admin.cashback.setPayoutStatus(payout.id, { status: 'TX_FAILED' }).catch((e: unknown) => e)) as ApiError;
    expect(conflict).toMatchObject({ status: 409, name: 'Conflict' });
  });

  it('simulates a bundle on a local chain, bigint values included', async () => {
    const sdk = await client();
    const from = randomWallet();
    const to = randomWallet();
    const result = await sdk.simulate({
      chainId: 31337,
      overrides: { accounts: { [from]: { balance: 3n * 10n ** 18n } } },
      calls: [{ from, to, value: 10n ** 18n, gas: 21_000n }],
    });
    expect(result).toMatchObject({ chainId: 31337, calls: [{ status: 1, gasUsed: '0x5208', result: '' }] });
    expect(result.calls[0]!.updated.accounts).toBeDefined();
    const refused = (await sdk.simulate({ chainId: 424242, calls: [{ from, to }] }).catch((e: unknown) => e)) as ApiError;
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused.status).toBe(400);
  });

  it('reads health, readiness and the services', async () => {
    const anonymous = new TradeInfraClient({ baseUrl: stack.baseUrl });
    expect(await anonymous.health()).toEqual({ status: 'ok' });
    expect(await anonymous.ready()).toEqual({
      ready: true,
      status: 'ok',
      checks: {
        database: 'up',
        nats: 'up',
        services: { 'intent-service': 'up', 'simulation-service': 'up', 'payout-service': 'up', 'orderflow-service': 'up' },
      },
      failing: [],
    });
    const services = await anonymous.servicesHealth();
    expect(services.services['intent-service']).toMatchObject({ state: 'up' });
  });

  it('says which connection failed when nothing listens, after retrying', async () => {
    const p = await proxy();
    const url = p.url;
    await p.close();
    const retries: RetryInfo[] = [];
    const sdk = new TradeInfraClient({ baseUrl: url, apiKey: 'x', maxAttempts: 3, backoff: { baseDelayMs: 10 }, onRetry: (i) => retries.push(i) });
    const err = (await sdk.intents.get(randomUUID()).catch((e: unknown) => e)) as ConnectionError;
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err).toMatchObject({ code: 'ECONNREFUSED', sent: false });
    expect(retries).toHaveLength(2);
  });
});
