import { createHmac } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import type { UnsignedTransaction } from '@tradeinfra/contracts';
import { Transaction, Wallet } from 'ethers';
import { WebhookClient, WebhookRefused, WebhookTimeout, type Resolver } from '../common/webhook-client.js';
import { addressRefusal } from '../common/webhook-target.js';
import { type SignJob } from '../execution/signed-buy.js';
import { WebhookSigner } from '../execution/signer.js';
import { HOSTILE_HOSTS, interfaceHosts, RecordingListener } from './recording-listener.js';

/**
 * The webhook client on real sockets: a local listener records every connection, and with
 * private addresses not allowed it must never get one, whatever form the address takes.
 */

/** A resolver answering from a table, counting its calls. */
function tableResolver(table: Record<string, string[] | string[][]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolver = (async (hostname: string) => {
    calls.push(hostname);
    const entry = table[hostname];
    if (!entry) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    // A list of lists answers each call with the next list (the last one repeats).
    const answer = Array.isArray(entry[0])
      ? (entry as string[][])[Math.min(calls.filter((c) => c === hostname).length - 1, entry.length - 1)]!
      : (entry as string[]);
    return answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  }) as Resolver & { calls: string[] };
  resolver.calls = calls;
  return resolver;
}

const post = (client: WebhookClient, url: string, timeoutMs = 2_000) =>
  client.post(url, { headers: { 'content-type': 'application/json' }, body: '{"hello":1}', timeoutMs });

describe('WebhookClient with private addresses refused', () => {
  let listener: RecordingListener;
  let client: WebhookClient;
  const resolver = tableResolver({
    'loopback.test': ['127.0.0.1'],
    'mapped.test': ['::ffff:127.0.0.1'],
    'metadata.test': ['169.254.169.254'],
    'nat64.test': ['64:ff9b::7f00:1'],
    'mixed.test': ['8.8.8.8', '127.0.0.1'],
    'self.test': [interfaceHosts.find((h) => !h.startsWith('127.'))?.replace(/^\[|\]$/g, '') ?? '127.0.0.1'],
  });

  beforeAll(async () => {
    listener = await new RecordingListener().start('::');
    client = new WebhookClient({ WEBHOOK_ALLOW_HTTP: true, WEBHOOK_ALLOW_PRIVATE: false, resolver });
  });
  afterAll(async () => {
    client?.close();
    await listener?.close();
  });
  afterEach(() => expect(listener.connections).toBe(0));

  it.each(HOSTILE_HOSTS)('refuses http://%s before connecting', async (host) => {
    await expect(post(client, `http://${host}:${listener.port}/hook`)).rejects.toThrow(WebhookRefused);
  });

  it.each(['loopback.test', 'mapped.test', 'metadata.test', 'nat64.test', 'self.test'])(
    'refuses %s, a name resolving to a local or private address',
    async (name) => {
      await expect(post(client, `http://${name}:${listener.port}/hook`)).rejects.toThrow(WebhookRefused);
    },
  );

  it('refuses a name when any one of its addresses is private, even if another is public', async () => {
    await expect(post(client, `http://mixed.test:${listener.port}/hook`)).rejects.toThrow(/resolves to 127\.0\.0\.1, a loopback address/);
  });

  it('refuses localhost through the system resolver', async () => {
    const system = new WebhookClient({ WEBHOOK_ALLOW_HTTP: true, WEBHOOK_ALLOW_PRIVATE: false });
    await expect(post(system, `http://localhost:${listener.port}/hook`)).rejects.toThrow(WebhookRefused);
    system.close();
  });

  it('refuses plain http unless WEBHOOK_ALLOW_HTTP, and other schemes always', async () => {
    const httpsOnly = new WebhookClient({ WEBHOOK_ALLOW_HTTP: false, WEBHOOK_ALLOW_PRIVATE: true });
    await expect(post(httpsOnly, `http://127.0.0.1:${listener.port}/hook`)).rejects.toThrow(/http: webhooks are not allowed/);
    await expect(post(client, `ftp://127.0.0.1:${listener.port}/hook`)).rejects.toThrow(/ftp: webhooks are not allowed/);
    httpsOnly.close();
  });
});

describe('WebhookClient: resolve once, connect to the checked address', () => {
  // 127.0.0.2 stands in for a public address (no test may reach the internet): the classifier
  // allows it and nothing else that addressRefusal refuses.
  const STAND_IN = '127.0.0.2';
  const classify = (address: string, local: ReadonlySet<string>) =>
    address === STAND_IN ? null : addressRefusal(address, new Set([...local].filter((a) => a !== STAND_IN)));
  let checked: RecordingListener;
  let loopback: RecordingListener;

  beforeAll(async () => {
    checked = await new RecordingListener().start(STAND_IN);
    loopback = await new RecordingListener().start('127.0.0.1', checked.port);
  });
  afterAll(async () => {
    await checked?.close();
    await loopback?.close();
  });

  it('a name answering the allowed address, then loopback (DNS rebinding): the request goes to the checked address', async () => {
    const resolver = tableResolver({ 'rebind.test': [[STAND_IN], ['127.0.0.1']] });
    const client = new WebhookClient({ WEBHOOK_ALLOW_HTTP: true, WEBHOOK_ALLOW_PRIVATE: false, resolver, classify });
    const answer = await post(client, `http://rebind.test:${checked.port}/hook`);
    expect(answer).toMatchObject({ status: 204, remoteAddress: STAND_IN });
    expect(resolver.calls).toEqual(['rebind.test']);
    expect(checked.requests.at(-1)!.headers.host).toBe(`rebind.test:${checked.port}`);
    // A later request resolves again only for a new connection, and then meets the loopback answer.
    await post(client, `http://rebind.test:${checked.port}/hook`).catch((err: Error) => expect(err).toBeInstanceOf(WebhookRefused));
    expect(loopback.connections).toBe(0);
    client.close();
  });

  it('a name answering loopback first: refused, and not resolved a second time', async () => {
    const resolver = tableResolver({ 'rebind.test': [['127.0.0.1'], [STAND_IN]] });
    const client = new WebhookClient({ WEBHOOK_ALLOW_HTTP: true, WEBHOOK_ALLOW_PRIVATE: false, resolver, classify });
    await expect(post(client, `http://rebind.test:${checked.port}/hook`)).rejects.toThrow(WebhookRefused);
    expect(resolver.calls).toEqual(['rebind.test']);
    expect(loopback.connections).toBe(0);
    client.close();
  });

  it('keeps the host name for TLS (SNI) while connecting to the checked address', async () => {
    const servernames: (string | undefined)[] = [];
    // No certificate at all: the handshake fails after the ClientHello told the server name.
    const tls: TlsServer = createTlsServer({
      SNICallback: (servername, cb) => {
        servernames.push(servername);
        cb(new Error('no certificate here'));
      },
    });
    await new Promise<void>((r) => tls.listen(0, STAND_IN, () => r()));
    const port = (tls.address() as AddressInfo).port;
    const client = new WebhookClient({
      WEBHOOK_ALLOW_HTTP: false,
      WEBHOOK_ALLOW_PRIVATE: false,
      resolver: tableResolver({ 'hooks.test': [STAND_IN] }),
      classify,
    });
    await expect(post(client, `https://hooks.test:${port}/hook`)).rejects.toThrow();
    expect(servernames).toEqual(['hooks.test']);
    client.close();
    await new Promise<void>((r) => tls.close(() => r()));
  });
});

describe('WebhookClient: answers', () => {
  let listener: RecordingListener;
  let target: RecordingListener;
  let client: WebhookClient;

  beforeAll(async () => {
    listener = await new RecordingListener().start('127.0.0.1');
    target = await new RecordingListener().start('127.0.0.1');
    client = new WebhookClient({ WEBHOOK_ALLOW_HTTP: true, WEBHOOK_ALLOW_PRIVATE: true });
  });
  afterAll(async () => {
    client?.close();
    await listener?.close();
    await target?.close();
  });

  it('returns a redirect as it is, never following it', async () => {
    listener.answer = { status: 302, headers: { location: `http://127.0.0.1:${target.port}/elsewhere` } };
    expect((await post(client, `http://127.0.0.1:${listener.port}/hook`)).status).toBe(302);
    expect(target.connections).toBe(0);
  });

  it('bounds the whole exchange by the timeout', async () => {
    listener.answer = { status: 200 };
    const silent = createTcpServer((socket) => socket.resume()); // reads, never answers
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    const started = Date.now();
    await expect(post(client, `http://127.0.0.1:${(silent.address() as AddressInfo).port}/hook`, 300)).rejects.toThrow(WebhookTimeout);
    expect(Date.now() - started).toBeLessThan(2_000);
    await new Promise<void>((r) => silent.close(() => r()));
  });

  it('retries once on a new connection when a kept-alive one was closed while idle', async () => {
    const served = new WeakSet<object>();
    let connections = 0;
    const flaky = createHttpServer((req, res) => {
      // The second request on a connection finds it closed (as a server's idle timeout would).
      if (served.has(req.socket)) return req.socket.destroy();
      served.add(req.socket);
      req.resume();
      req.on('end', () => res.writeHead(204).end());
    });
    flaky.on('connection', () => connections++);
    await new Promise<void>((r) => flaky.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(flaky.address() as AddressInfo).port}/hook`;
    expect((await post(client, url)).status).toBe(204);
    expect((await post(client, url)).status).toBe(204);
    expect(connections).toBe(2);
    flaky.closeAllConnections();
    await new Promise<void>((r) => flaky.close(() => r()));
  });

  it('keeps at most maxBodyBytes of the answer', async () => {
    listener.answer = { status: 200, body: 'x'.repeat(100_000) };
    const answer = await client.post(`http://127.0.0.1:${listener.port}/hook`, { headers: {}, body: '', timeoutMs: 2_000, maxBodyBytes: 1_000 });
    expect(answer).toMatchObject({ status: 200, body: null });
  });
});

describe('WebhookSigner never reaches a local signer when private addresses are refused', () => {
  let listener: RecordingListener;
  const tx = {
    purpose: 'buy',
    type: 2,
    chainId: 31337,
    from: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    nonce: 0,
    to: null,
    value: '1',
    data: '0x',
    gasLimit: '21000',
    maxFeePerGas: '1',
    maxPriorityFeePerGas: '1',
    accessList: [],
    summary: {},
  } as unknown as UnsignedTransaction;
  const job = (webhookUrl: string): SignJob => ({ intentId: 'i', tenantId: 't', webhookUrl, tx, launchBlock: 1n, targetBlock: 2n });
  const signer = (allowPrivate: boolean) =>
    new WebhookSigner({
      timeoutMs: 2_000,
      sign: async () => 'v1=00',
      client: new WebhookClient({ WEBHOOK_ALLOW_HTTP: true, WEBHOOK_ALLOW_PRIVATE: allowPrivate, resolver: tableResolver({ 'loopback.test': ['127.0.0.1'] }) }),
    });

  beforeAll(async () => {
    listener = await new RecordingListener().start('::');
  });
  afterAll(() => listener?.close());

  it.each([...HOSTILE_HOSTS, 'loopback.test'])('http://%s is signer_refused, with no connection', async (host) => {
    const result = await signer(false).sign(job(`http://${host}:${listener.port}/sign`));
    expect(result).toMatchObject({ ok: false, reason: 'signer_refused', detail: expect.stringMatching(/^refused: /) });
    expect(listener.connections).toBe(0);
  });

  it('reaches the same listener when WEBHOOK_ALLOW_PRIVATE is set (local development)', async () => {
    listener.answer = { status: 200, body: '{"signedTransactions":["0x00"]}' };
    const result = await signer(true).sign(job(`http://loopback.test:${listener.port}/sign`));
    expect(result).toMatchObject({ ok: false, reason: 'signature_invalid' });
    expect(listener.requests).toHaveLength(1);
    expect(listener.requests[0]!.headers['x-signing-signature']).toBe('v1=00');
  });

  it('refuses a redirect: signer_refused', async () => {
    listener.answer = { status: 307, headers: { location: 'http://127.0.0.1:1/' } };
    expect(await signer(true).sign(job(`http://127.0.0.1:${listener.port}/sign`))).toMatchObject({
      ok: false,
      reason: 'signer_refused',
      detail: 'webhook answered 307 (redirects are not followed)',
    });
  });
});

describe('WebhookSigner speaking Merkle’s signature webhook (the default protocol), over HTTP', () => {
  let listener: RecordingListener;
  const wallet = new Wallet('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
  const other = new Wallet('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a');
  const tx = {
    purpose: 'buy',
    type: 2,
    chainId: 1,
    from: wallet.address,
    nonce: 715,
    to: null,
    value: '1000000000000000000',
    data: '0x6080',
    gasLimit: '309627',
    maxFeePerGas: '14279753413',
    maxPriorityFeePerGas: '3000000000',
    accessList: [],
    summary: {},
  } as unknown as UnsignedTransaction;
  const job: Omit<SignJob, 'webhookUrl'> = {
    intentId: '019ab2f4-5c00-7a10-8a3e-3c1f0b6f2a01',
    tenantId: 't',
    tx,
    launchBlock: 20584607n,
    targetBlock: 20584608n,
    protocol: 'merkle',
    launch: { type: 'public_transaction', txHash: `0x${'7f'.repeat(32)}`, blockNumber: 20584608n },
  };
  /** The same transaction as the wallet would sign it. */
  const fields = {
    type: 2,
    chainId: 1n,
    nonce: 715,
    to: null,
    value: 10n ** 18n,
    data: '0x6080',
    gasLimit: 309627n,
    maxFeePerGas: 14279753413n,
    maxPriorityFeePerGas: 3000000000n,
    accessList: [],
  };
  const hash = Transaction.from(fields).unsignedHash;
  const signer = new WebhookSigner({
    timeoutMs: 2_000,
    sign: async (_tenant, timestamp, body) => `v1=${createHmac('sha256', 'secret').update(`${timestamp}.${body}`).digest('hex')}`,
    client: new WebhookClient({ WEBHOOK_ALLOW_HTTP: true, WEBHOOK_ALLOW_PRIVATE: true }),
  });
  const sign = () => signer.sign({ ...job, webhookUrl: `http://127.0.0.1:${listener.port}/sign` });

  beforeAll(async () => {
    listener = await new RecordingListener().start('127.0.0.1');
  });
  afterAll(() => listener?.close());

  it('posts Merkle’s request with our HMAC headers, and builds the buy from tx and the 65-byte signature', async () => {
    const signature = wallet.signingKey.sign(hash).serialized;
    listener.answer = { status: 200, body: JSON.stringify({ signature }) };
    const result = await sign();
    const expected = await wallet.signTransaction(fields);
    expect(result).toEqual({ ok: true, raw: expected, hash: Transaction.from(expected).hash });
    const request = listener.requests.at(-1)!;
    const body = JSON.parse(request.body) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['intentId', 'launch', 'tx', 'rawTx', 'hash']);
    expect(body).toMatchObject({
      intentId: job.intentId,
      launch: { type: 'public_transaction', blockNumber: '20584608', launchTxHash: `0x${'7f'.repeat(32)}` },
      tx: {
        to: null,
        value: '0xde0b6b3a7640000',
        chainId: '0x1',
        gas: '0x4b97b',
        nonce: '0x2cb',
        maxFeePerGas: '0x35323bec5',
        maxPriorityFeePerGas: '0xb2d05e00',
      },
      hash,
    });
    const timestamp = String(request.headers['x-signing-timestamp']);
    expect(request.headers['x-signing-signature']).toBe(`v1=${createHmac('sha256', 'secret').update(`${timestamp}.${request.body}`).digest('hex')}`);
  });

  it.each<[string, () => { status: number; body?: string; headers?: Record<string, string> }, string]>([
    ['a signature by another key', () => ({ status: 200, body: JSON.stringify({ signature: other.signingKey.sign(hash).serialized }) }), 'signature_invalid'],
    ['the compact form', () => ({ status: 200, body: JSON.stringify({ signature: wallet.signingKey.sign(hash).compactSerialized }) }), 'signature_invalid'],
    ['a malformed signature', () => ({ status: 200, body: '{"signature":"0x1c"}' }), 'signature_invalid'],
    ['our protocol’s answer', () => ({ status: 200, body: '{"signedTransactions":["0x02"]}' }), 'signature_invalid'],
    ['not JSON', () => ({ status: 200, body: 'signed!' }), 'signature_invalid'],
    ['a 500', () => ({ status: 500, body: '{}' }), 'signer_refused'],
    ['a redirect', () => ({ status: 307, headers: { location: 'http://127.0.0.1:1/' } }), 'signer_refused'],
  ])('fails %s with today’s reason (%#)', async (_what, answer, reason) => {
    listener.answer = answer();
    expect(await sign()).toMatchObject({ ok: false, reason });
  });

  it('refuses an answer nested 5,000 levels deep (within the answer’s size limit) before parsing it, saying so', async () => {
    listener.answer = { status: 200, body: `${'['.repeat(5_000)}${']'.repeat(5_000)}` };
    expect(await sign()).toEqual({ ok: false, reason: 'signature_invalid', detail: 'JSON nests arrays and objects deeper than 64 levels' });
  });
});
