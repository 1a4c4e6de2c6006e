import { createServer, type Server } from 'node:http';
import { Wallet, id as keccakText, verifyMessage } from 'ethers';
import { ChainRpc, RpcUnavailable } from '../chain/chain-rpc.js';
import { BundleSubmitter, RpcSubmitter } from './submitter.js';

interface Seen {
  body: string;
  signature: string;
}

/** A relay speaking eth_sendBundle: answers each bundle with `answer(i)`. */
async function relay(answer: (i: number) => { result?: unknown; error?: { message: string } }): Promise<{ url: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ body, signature: String(req.headers['x-flashbots-signature']) });
      const batch = JSON.parse(body) as { id: number }[];
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(batch.map((r) => ({ jsonrpc: '2.0', id: r.id, ...answer(r.id) }))));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, seen, server };
}

const identity = Wallet.createRandom();
const submissions = [
  { intentId: 'a', raw: '0x02aa', hash: '0x01' },
  { intentId: 'b', raw: '0x02bb', hash: '0x02' },
];

describe('BundleSubmitter', () => {
  const servers: Server[] = [];
  afterAll(() => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))));

  it('sends each buy as its own bundle for exactly the target block, signed by the relay identity', async () => {
    const r = await relay(() => ({ result: { bundleHash: '0xb' } }));
    servers.push(r.server);
    const outcome = await new BundleSubmitter([r.url], identity.privateKey).submit(submissions, 0x1234n);
    expect([...outcome]).toEqual([
      ['a', null],
      ['b', null],
    ]);
    expect(r.seen).toHaveLength(1);
    const batch = JSON.parse(r.seen[0]!.body);
    expect(batch.map((x: { method: string; params: unknown[] }) => [x.method, x.params])).toEqual([
      ['eth_sendBundle', [{ txs: ['0x02aa'], blockNumber: '0x1234', revertingTxHashes: [] }]],
      ['eth_sendBundle', [{ txs: ['0x02bb'], blockNumber: '0x1234', revertingTxHashes: [] }]],
    ]);
    // X-Flashbots-Signature: <address>:<personal_sign(keccak256(body))>
    const [address, signature] = r.seen[0]!.signature.split(':');
    expect(address).toBe(identity.address);
    expect(verifyMessage(keccakText(r.seen[0]!.body), signature!)).toBe(identity.address);
    // Byte for byte what ethers' signMessage gives (signed with libsecp256k1 here).
    expect(signature).toBe(await identity.signMessage(keccakText(r.seen[0]!.body)));
  });

  it('counts a bundle accepted when any relay took it, and reports what every relay refused', async () => {
    const refusing = await relay(() => ({ error: { message: 'bundle refused' } }));
    const picky = await relay((i) => (i === 0 ? { result: {} } : { error: { message: 'nonce too low' } }));
    servers.push(refusing.server, picky.server);
    const down = 'http://127.0.0.1:9';
    const outcome = await new BundleSubmitter([refusing.url, picky.url, down], null).submit(submissions, 7n);
    expect(outcome.get('a')).toBeNull();
    expect(outcome.get('b')).toMatch(/refused|nonce too low/);
  });

  it('behind a pending launch, sends one bundle: the launch first, then the buys in order; its answer stands for each buy', async () => {
    const r = await relay(() => ({ result: { bundleHash: '0xb' } }));
    const refusing = await relay(() => ({ error: { message: 'bundle reverts' } }));
    servers.push(r.server, refusing.server);
    const outcome = await new BundleSubmitter([r.url], null).submit(submissions, 9n, '0x02launch');
    expect([...outcome]).toEqual([
      ['a', null],
      ['b', null],
    ]);
    expect(JSON.parse(r.seen[0]!.body).map((x: { params: unknown[] }) => x.params)).toEqual([
      [{ txs: ['0x02launch', '0x02aa', '0x02bb'], blockNumber: '0x9', revertingTxHashes: [] }],
    ]);
    const refused = await new BundleSubmitter([refusing.url], null).submit(submissions, 9n, '0x02launch');
    expect([...refused.values()]).toEqual(['bundle reverts', 'bundle reverts']);
  });
});

/** A node speaking JSON-RPC that records every request's calls and answers each with `answer`. */
async function node(answer: (raw: string) => { result?: unknown; error?: { code: number; message: string } } | null) {
  const requests: string[][] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: number; params: string[] } | { id: number; params: string[] }[];
      const calls = Array.isArray(body) ? body : [body];
      requests.push(calls.map((c) => c.params[0]!));
      // null: the call is left out of the answer.
      const replies = calls.flatMap((c) => {
        const a = answer(c.params[0]!);
        return a ? [{ jsonrpc: '2.0', id: c.id, ...a }] : [];
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      // A batch answered in reverse: replies are matched by id, not position.
      res.end(JSON.stringify(Array.isArray(body) ? replies.reverse() : replies[0]));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { rpc: new ChainRpc(`http://127.0.0.1:${(server.address() as { port: number }).port}`), requests, server };
}

describe('RpcSubmitter', () => {
  const servers: Server[] = [];
  afterAll(() => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))));
  const three = [...submissions, { intentId: 'c', raw: '0x02cc', hash: '0x03' }];
  const answer = (raw: string) =>
    raw === '0x02bb'
      ? { error: { code: -32000, message: 'insufficient funds for gas * price + value' } }
      : raw === '0x02cc'
        ? { error: { code: -32000, message: 'already known' } }
        : { result: '0x01' };

  it('sends the buys one after the other, in order, to a node that may reorder a batch', async () => {
    const n = await node(answer);
    servers.push(n.server);
    const outcome = await new RpcSubmitter(n.rpc, () => Promise.resolve({ orderedBatches: false })).submit(three);
    expect(n.requests).toEqual([['0x02aa'], ['0x02bb'], ['0x02cc']]);
    expect([...outcome]).toEqual([
      ['a', null],
      ['b', 'eth_sendRawTransaction: insufficient funds for gas * price + value'],
      ['c', null],
    ]);
  });

  it('sends them in one batch, in order, to a node that keeps a batch in order, with the same outcomes', async () => {
    const n = await node(answer);
    servers.push(n.server);
    const outcome = await new RpcSubmitter(n.rpc, () => Promise.resolve({ orderedBatches: true })).submit(three);
    expect(n.requests).toEqual([['0x02aa', '0x02bb', '0x02cc']]);
    expect([...outcome]).toEqual([
      ['a', null],
      ['b', 'insufficient funds for gas * price + value'],
      ['c', null],
    ]);
  });

  it('follows a buy the batch’s answer left out like an accepted one (it may be in the pool), not as refused', async () => {
    const n = await node((raw) => (raw === '0x02bb' ? null : answer(raw)));
    servers.push(n.server);
    const outcome = await new RpcSubmitter(n.rpc, () => Promise.resolve({ orderedBatches: true })).submit(three);
    expect([...outcome]).toEqual([
      ['a', null],
      ['b', null],
      ['c', null],
    ]);
  });

  it('throws when the node cannot be reached, so the round knows nothing was sent', async () => {
    const down = new ChainRpc('http://127.0.0.1:9');
    await expect(new RpcSubmitter(down, () => Promise.resolve({ orderedBatches: true })).submit(three)).rejects.toBeInstanceOf(RpcUnavailable);
    await expect(new RpcSubmitter(down, () => Promise.resolve({ orderedBatches: false })).submit(three)).rejects.toBeInstanceOf(RpcUnavailable);
  });
});
