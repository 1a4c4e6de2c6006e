import { createServer, type Server } from 'node:http';
import { INTENT_CREATE, INTENT_GET, type CreateIntentReply, type IntentRecord } from '@tradeinfra/contracts';
import { eventually, HardhatNode, JsonRpcProxy } from '@tradeinfra/test-support';
import { randomUUID } from 'node:crypto';
import { startIntentService, type IntentServiceHarness } from './harness.js';

/** The node behind a switch: while `down`, every request fails with 502. */
async function switchableProxy(target: string): Promise<{ url: string; server: Server; setDown(down: boolean): void }> {
  let down = false;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (down) {
        res.writeHead(502);
        res.end();
        return;
      }
      void fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) })
        .then(async (r) => {
          res.writeHead(r.status, { 'content-type': 'application/json' });
          res.end(await r.text());
        })
        .catch(() => {
          res.writeHead(502);
          res.end();
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server, setDown: (d) => (down = d) };
}

describe('a chain whose node cannot be reached', () => {
  let node: HardhatNode;
  let proxy: Awaited<ReturnType<typeof switchableProxy>>;
  let h: IntentServiceHarness;
  const tenantId = randomUUID();
  const get = (id: string) => h.rpc.request<IntentRecord>(INTENT_GET, { tenantId, id });
  const create = (expiry: number) =>
    h.rpc.request<CreateIntentReply>(INTENT_CREATE, {
      tenantId,
      idempotencyKey: null,
      body: {
        chainId: 31337,
        wallet: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
        tokenAddress: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
        bribe: '1',
        buyAmount: '1',
        expiry,
      },
    });

  beforeAll(async () => {
    node = await HardhatNode.start({ chainId: 31337 });
    proxy = await switchableProxy(node.url);
    h = await startIntentService({
      CHAIN_IDS: '31337',
      RPC_URL_31337: proxy.url,
      DEX_FACTORY_31337: '0x5c69bee701ef814a2b6a3edd4b1652cb9cc5aa6f',
      WRAPPED_NATIVE_31337: '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2',
      LAUNCH_POLL_INTERVAL_MS: '50',
      EXPIRY_SWEEP_INTERVAL_MS: '100',
    });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await new Promise((r) => proxy?.server.close(r));
    await node?.stop();
  });

  it('says so on its waiting intents, keeps it if they expire meanwhile, and clears it when the node is back', async () => {
    const { intent: waiting } = await create(Math.floor(Date.now() / 1000) + 3600);
    const { intent: expiring } = await create(Math.floor(Date.now() / 1000) + 2);
    proxy.setDown(true);
    await eventually('noted', async () => (await get(waiting.id)).statusReason === 'chain_unreachable');
    await eventually('expired', async () => (await get(expiring.id)).status === 'expired');
    expect(await get(expiring.id)).toMatchObject({ status: 'expired', statusReason: 'chain_unreachable' });
    expect((await get(waiting.id)).status).toBe('pending');
    proxy.setDown(false);
    await eventually('cleared', async () => (await get(waiting.id)).statusReason === null);
    expect((await get(waiting.id)).status).toBe('pending');
  });
});

describe('a chain whose node falls behind the cursor', () => {
  let node: HardhatNode;
  let proxy: JsonRpcProxy;
  let h: IntentServiceHarness;
  const cursor = async () => BigInt((await h.db.query<{ n: string }>('SELECT max(number)::text AS n FROM intent.chain_blocks WHERE chain_id = 31337'))[0]!.n);
  const head = async () => BigInt(await node.rpc.call<string>('eth_blockNumber'));

  beforeAll(async () => {
    node = await HardhatNode.start({ chainId: 31337 });
    proxy = await JsonRpcProxy.start({ upstream: node.url });
    h = await startIntentService({
      CHAIN_IDS: '31337',
      RPC_URL_31337: proxy.url,
      DEX_FACTORY_31337: '0x5c69bee701ef814a2b6a3edd4b1652cb9cc5aa6f',
      WRAPPED_NATIVE_31337: '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2',
      LAUNCH_POLL_INTERVAL_MS: '50',
    });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await proxy?.close();
    await node?.stop();
  });

  it('waits for a node whose head is below blocks already read (no rewind, no error), then follows it on', async () => {
    await node.rpc.call('hardhat_mine', ['0x8']);
    await eventually('following the chain', async () => (await cursor()) >= (await head()));
    const before = await cursor();
    // A node three blocks behind (a load-balanced URL's other node): its blocks are the ones read.
    await proxy.fault({ kind: 'stale', head: before - 3n });
    const polls = proxy.stats().byMethod.eth_blockNumber ?? 0;
    await eventually('several polls of the node behind', () => (proxy.stats().byMethod.eth_blockNumber ?? 0) >= polls + 10);
    expect(await cursor()).toBe(before);
    await proxy.fault(null);
    await node.rpc.call('evm_mine', []);
    await eventually('following the chain again', async () => (await cursor()) === (await head()));
    expect(await cursor()).toBe(before + 1n);
  });
});
