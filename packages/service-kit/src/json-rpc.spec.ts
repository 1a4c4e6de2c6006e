import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChainRpc } from './chain-rpc.js';
import { RpcError, RpcUnavailable, type RpcReplyItem } from './json-rpc.js';

interface Request {
  id: number;
  method: string;
  params: unknown[];
}

type Handler = (body: Request | Request[], res: ServerResponse, req: IncomingMessage) => void;

/** A node:http JSON-RPC node whose answers the test scripts; it records every HTTP request's body. */
class Node {
  readonly requests: (Request | Request[])[] = [];
  url = '';
  private server!: Server;

  constructor(private readonly handler: Handler) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Request | Request[];
        this.requests.push(body);
        this.handler(body, res, req);
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const send = (res: ServerResponse, body: unknown) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

/** Answers `echo` with its first param, `fail` with an error carrying data; a batch in reverse order. */
const echo: Handler = (body, res) => {
  const one = (r: Request) =>
    r.method === 'fail'
      ? { jsonrpc: '2.0', id: r.id, error: { code: -32000, message: 'execution reverted', data: { txHash: '0xab' } } }
      : { jsonrpc: '2.0', id: r.id, result: r.params[0] };
  send(res, Array.isArray(body) ? body.map(one).reverse() : one(body));
};

describe('ChainRpc', () => {
  const nodes: Node[] = [];
  const start = async (handler: Handler) => {
    const node = await new Node(handler).start();
    nodes.push(node);
    return node;
  };
  afterEach(async () => {
    await Promise.all(nodes.splice(0).map((n) => n.stop()));
  });

  it('calls a method: its result, or an RpcError with the method, code, message and data', async () => {
    const node = await start(echo);
    const rpc = new ChainRpc(node.url);
    await expect(rpc.call<string>('echo', ['0x1'])).resolves.toBe('0x1');
    const err = await rpc.call('fail', []).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcError);
    expect(err).toMatchObject({
      name: 'RpcError',
      method: 'fail',
      code: -32000,
      detail: 'execution reverted',
      data: { txHash: '0xab' },
      message: 'fail: execution reverted',
    });
    expect(node.requests).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'echo', params: ['0x1'] },
      { jsonrpc: '2.0', id: 2, method: 'fail', params: [] },
    ]);
    expect(rpc.roundTrips).toBe(2);
  });

  it('sends a batch in one request and gives its replies in the calls order, matched by id, with each error in its place', async () => {
    const node = await start(echo);
    const rpc = new ChainRpc(node.url);
    const replies = await rpc.batch<string>([
      { method: 'echo', params: ['a'] },
      { method: 'fail', params: [] },
      { method: 'echo', params: ['c'] },
    ]);
    expect(replies).toEqual([{ result: 'a' }, { error: { code: -32000, message: 'execution reverted', data: { txHash: '0xab' } } }, { result: 'c' }]);
    expect(node.requests).toHaveLength(1);
    await expect(
      rpc.all<string>([
        { method: 'echo', params: ['x'] },
        { method: 'echo', params: ['y'] },
      ]),
    ).resolves.toEqual(['x', 'y']);
    await expect(
      rpc.all([
        { method: 'echo', params: ['x'] },
        { method: 'fail', params: [] },
      ]),
    ).rejects.toMatchObject({ name: 'RpcError', method: 'fail', code: -32000 });
    await expect(rpc.batch([])).resolves.toEqual([]);
    expect(rpc.roundTrips).toBe(3);
  });

  it('gives a call the answer left out an RpcUnavailable bad_answer in its place (and `all` throws it)', async () => {
    const node = await start((body, res) =>
      send(
        res,
        (body as Request[]).filter((r) => r.method !== 'lost').map((r) => ({ jsonrpc: '2.0', id: r.id, result: 1 })),
      ),
    );
    const rpc = new ChainRpc(node.url);
    const replies: RpcReplyItem[] = await rpc.batch([
      { method: 'kept', params: [] },
      { method: 'lost', params: [] },
    ]);
    expect(replies[0]).toEqual({ result: 1 });
    expect(replies[1]!.error).toBeInstanceOf(RpcUnavailable);
    expect(replies[1]!.error).toMatchObject({ reason: 'bad_answer', message: 'lost: no reply in the batch' });
    await expect(rpc.all([{ method: 'lost', params: [] }])).rejects.toMatchObject({ name: 'RpcUnavailable', reason: 'bad_answer' });
  });

  it('splits a batch longer than maxBatch into several requests, replies still in order', async () => {
    const node = await start(echo);
    const rpc = new ChainRpc(node.url, { maxBatch: 2 });
    const calls = ['a', 'b', 'c', 'd', 'e'].map((x) => ({ method: 'echo', params: [x] }));
    await expect(rpc.all<string>(calls)).resolves.toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(node.requests.map((r) => (r as Request[]).length).sort()).toEqual([1, 2, 2]);
    expect(rpc.roundTrips).toBe(3);
  });

  it('refuses a batch the node answered with a single error object as a bad answer', async () => {
    const node = await start((_body, res) => send(res, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batch too large' } }));
    const rpc = new ChainRpc(node.url);
    const err = await rpc.batch([{ method: 'echo', params: [1] }]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcUnavailable);
    expect(err).toMatchObject({ reason: 'bad_answer', detail: 'an error instead of a batch: batch too large' });
  });

  it('says why the node gave no usable answer: timeout, unreachable (refused, HTTP status) or bad_answer (not JSON)', async () => {
    const hung = await start(() => undefined);
    const timeout = await new ChainRpc(hung.url, { timeoutMs: 200 }).call('echo', [1]).catch((e: unknown) => e);
    expect(timeout).toBeInstanceOf(RpcUnavailable);
    expect(timeout).toMatchObject({ reason: 'timeout', detail: 'no answer within 200 ms', message: 'echo: the node did not answer (no answer within 200 ms)' });

    const broken = await start((_body, res) => {
      res.writeHead(502);
      res.end('bad gateway');
    });
    await expect(new ChainRpc(broken.url).call('echo', [1])).rejects.toMatchObject({ name: 'RpcUnavailable', reason: 'unreachable', detail: 'HTTP 502' });

    const html = await start((_body, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>');
    });
    await expect(new ChainRpc(html.url).batch([{ method: 'echo', params: [1] }])).rejects.toMatchObject({ reason: 'bad_answer', detail: 'not JSON' });

    const notReply = await start((_body, res) => send(res, 42));
    await expect(new ChainRpc(notReply.url).call('echo', [1])).rejects.toMatchObject({ name: 'RpcUnavailable', reason: 'bad_answer' });

    const closed = await start(echo);
    await closed.stop();
    nodes.pop();
    await expect(new ChainRpc(closed.url).call('echo', [1])).rejects.toMatchObject({ name: 'RpcUnavailable', reason: 'unreachable', detail: 'ECONNREFUSED' });
  });

  it('sends a request again when the kept-alive connection it went on was closed by the node, once', async () => {
    let n = 0;
    // Requests 2, 5 and 6 die with their connection, as when the node closes an idle one.
    const node = await start((body, res, req) => {
      n++;
      if (n === 2 || n === 5 || n === 6) req.socket.destroy();
      else echo(body, res, req);
    });
    const rpc = new ChainRpc(node.url);
    await expect(rpc.call('echo', ['first'])).resolves.toBe('first');
    await expect(rpc.call('echo', ['second'])).resolves.toBe('second');
    expect(node.requests).toHaveLength(3);
    // Lost again on the fresh connection: not sent a third time.
    await expect(rpc.call('echo', ['third'])).resolves.toBe('third');
    await expect(rpc.call('echo', ['fourth'])).rejects.toMatchObject({ name: 'RpcUnavailable', reason: 'unreachable', detail: 'ECONNRESET' });
    expect(node.requests).toHaveLength(6);
  });

  it('tries every kept-alive connection the node closed at once, then a new one', async () => {
    let n = 0;
    // Requests 3 and 4 die with their connections: both idle ones closed together.
    const node = await start((body, res, req) => {
      n++;
      if (n === 3 || n === 4) req.socket.destroy();
      else echo(body, res, req);
    });
    const rpc = new ChainRpc(node.url);
    // Two requests at once: two connections kept alive.
    await expect(Promise.all([rpc.call('echo', ['a']), rpc.call('echo', ['b'])])).resolves.toEqual(['a', 'b']);
    await expect(rpc.call('echo', ['c'])).resolves.toBe('c');
    expect(node.requests).toHaveLength(5);
  });

  describe('with autoBatch', () => {
    it('sends the calls of one tick as one batch, each answered with its own result or error', async () => {
      const node = await start(echo);
      const rpc = new ChainRpc(node.url, { autoBatch: true });
      const [a, b, c] = await Promise.allSettled([rpc.call('echo', ['a']), rpc.call('fail', []), rpc.call('echo', ['c'])]);
      expect(a).toEqual({ status: 'fulfilled', value: 'a' });
      expect(b).toMatchObject({ status: 'rejected', reason: { name: 'RpcError', method: 'fail', code: -32000, data: { txHash: '0xab' } } });
      expect(c).toEqual({ status: 'fulfilled', value: 'c' });
      expect(node.requests).toHaveLength(1);
      expect(rpc.roundTrips).toBe(1);
      await rpc.call('echo', ['next tick']);
      expect(rpc.roundTrips).toBe(2);
    });

    it('sends at most maxBatch calls per request', async () => {
      const node = await start(echo);
      const rpc = new ChainRpc(node.url, { autoBatch: true, maxBatch: 3 });
      const values = await Promise.all([1, 2, 3, 4, 5, 6, 7].map((i) => rpc.call<number>('echo', [i])));
      expect(values).toEqual([1, 2, 3, 4, 5, 6, 7]);
      expect(node.requests.map((r) => (r as Request[]).length)).toEqual([3, 3, 1]);
      expect(rpc.roundTrips).toBe(3);
    });

    it('rejects every call of a batch the node gave no usable answer to', async () => {
      const node = await start((_body, res) => send(res, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'no batches' } }));
      const rpc = new ChainRpc(node.url, { autoBatch: true });
      const results = await Promise.allSettled([rpc.call('echo', [1]), rpc.call('echo', [2])]);
      for (const r of results) expect(r).toMatchObject({ status: 'rejected', reason: { name: 'RpcUnavailable', reason: 'bad_answer' } });
    });
  });
});
