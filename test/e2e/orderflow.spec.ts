import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import mevShareModule from '@flashbots/mev-share-client';
import type { IPendingTransaction } from '@flashbots/mev-share-client';
import { devWallet, eventually, HardhatNode, LocalDex, LocalRelay, type ReceivedBundle } from '@tradeinfra/test-support';
import { id as keccakText, JsonRpcProvider, MaxUint256, Transaction, Wallet, type HDNodeWallet } from 'ethers';
import { Stack } from './harness.js';

// The client is CommonJS: imported from ESM, its default export is the module object's `default`.
const MevShareClient = mevShareModule.default;
type MevShareClient = InstanceType<typeof MevShareClient>;

/**
 * Order flow on a local chain (hardhat, automine off, FIFO pool) behind a relay that builds what
 * it receives into the node's pool: a wallet sends a swap through POST /v1/rpc (ethers pointed at
 * it), searchers written with @flashbots/mev-share-client (only the network config points at us)
 * see the hint and bid, the winning [target, backrun] is mined, and the source's share of what the
 * backrun paid is credited in the payout ledger, once.
 */
const ROOT = join(import.meta.dirname, '..', '..');
const ETH = 10n ** 18n;
const GWEI = 10n ** 9n;
const SHARE_BPS = 9_000n;

describe('order flow: private transactions, the backrun auction, cashback', () => {
  let node: HardhatNode;
  let dex: LocalDex;
  let token: string;
  let relay: LocalRelay;
  let stack: Stack;
  let tenantKey: string;
  const source = `wallet-${Math.random().toString(36).slice(2, 8)}`;
  const treasury = devWallet(10);
  const user = devWallet(3);
  const searchers = [devWallet(4), devWallet(5), devWallet(6)];
  const clients: MevShareClient[] = [];
  const streams: { close(): void }[] = [];
  /** Transactions the node got from anywhere but the relay (none may be a private one). */
  const relayed = new Set<string>();
  const children: ChildProcess[] = [];
  const rpc = <T = any>(method: string, params: unknown[] = []) => node.rpc.call<T>(method, params);

  beforeAll(async () => {
    node = await HardhatNode.start({ chainId: 1 });
    dex = await LocalDex.deploy(node);
    token = await dex.deployToken('PlainToken', [10n ** 27n]);
    await dex.launch(token, 10n ** 24n, 100n * ETH);
    await rpc('evm_setAutomine', [false]);
    relay = await LocalRelay.start({
      buildOn: (method, params) => {
        relayed.add(Transaction.from(params[0] as string).hash!);
        return rpc(method, params);
      },
    });
    stack = await Stack.start({
      RPC_URL_1: node.url,
      ORDERFLOW_RELAY_URLS_1: relay.url,
      // Round 1's bids: room for a loaded CI box between the hint and a searcher's simulated bid.
      ORDERFLOW_AUCTION_WINDOW_MS: '3000',
      ORDERFLOW_POLL_INTERVAL_MS: '100',
      ORDERFLOW_CONFIRMATIONS: '2',
      PAYOUT_CHAIN_IDS: '1',
      PAYOUT_SIGNER_KEY_1: treasury.privateKey,
      PAYOUT_RPC_URL_1: node.url,
      PAYOUT_SETTLE_INTERVAL_MS: '200',
      // The intent service's launch watching has nothing to do here.
      CHAIN_IDS: '56',
    });
    const admin = await stack.createKey({ scopes: ['admin'] });
    const tenant = `tenant-${source}`;
    tenantKey = (await stack.createKeyWithTenant({ scopes: ['rpc', 'payouts:read', 'payouts:write'], tenant })).key;
    const registered = await stack.request('POST', '/v1/sources', { key: admin, body: { id: source, tenant } });
    expect(registered.status).toBe(201);
  }, 180_000);

  afterAll(async () => {
    for (const s of streams) s.close();
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await stack?.close();
    await relay?.stop();
    await node?.stop();
  });

  /** The wallet's provider: ethers on our RPC URL, the key in the URL as a wallet carries it. */
  const walletProvider = () => new JsonRpcProvider(`${stack.baseUrl}/v1/rpc?source=${source}&key=${tenantKey}`, 1, { staticNetwork: true });

  /** A searcher on our stream and API with the stock client: only its network config is ours. */
  function searcher(wallet: HDNodeWallet): MevShareClient {
    // The client is typed against ethers' CommonJS build; it only reads the signer's address and calls signMessage.
    const client = new MevShareClient(new Wallet(wallet.privateKey) as unknown as ConstructorParameters<typeof MevShareClient>[0], {
      streamUrl: `${stack.baseUrl}/v1/mev/stream`,
      apiUrl: `${stack.baseUrl}/v1/mev`,
    });
    clients.push(client);
    return client;
  }

  /**
   * Opens the client's hint stream (resolves once it is connected); `hintOf(hash)` then waits for
   * the hint of a transaction (which may come before its sender has the hash back).
   */
  async function listen(client: MevShareClient): Promise<{ hintOf: (hash: string) => Promise<IPendingTransaction> }> {
    const seen: IPendingTransaction[] = [];
    const stream = client.on('transaction', (tx: IPendingTransaction) => seen.push(tx)) as unknown as { readyState: number; close(): void };
    streams.push(stream);
    // EventSource's OPEN (1): the gateway has subscribed to the hints before it answered.
    await eventually('the hint stream open', () => stream.readyState === 1);
    return { hintOf: (hash) => eventually(`the hint of ${hash}`, () => seen.find((h) => h.hash === hash)) };
  }

  /** A signed swap of 1 ETH for the token, by the user, through the wallet's provider. */
  async function swap(extra: { nonce?: number } = {}): Promise<string> {
    const provider = walletProvider();
    const wallet = new Wallet(user.privateKey, provider);
    const data = dex.a.UniswapV2Router02!.iface.encodeFunctionData('swapExactETHForTokens', [0, [dex.weth, token], user.address, MaxUint256]);
    const tx = await wallet.sendTransaction({
      to: dex.router,
      data,
      value: ETH,
      gasLimit: 300_000n,
      maxFeePerGas: 2n * GWEI,
      maxPriorityFeePerGas: GWEI,
      ...extra,
    });
    provider.destroy();
    return tx.hash;
  }

  /** A backrun paying `bid` wei to the treasury (the default beneficiary), signed by `wallet`. */
  async function backrun(wallet: HDNodeWallet, bid: bigint, extra: { to?: string; data?: string } = {}): Promise<string> {
    const nonce = await rpc<string>('eth_getTransactionCount', [wallet.address, 'latest']);
    return new Wallet(wallet.privateKey).signTransaction({
      chainId: 1,
      type: 2,
      nonce: Number(nonce),
      to: extra.to ?? treasury.address,
      data: extra.data ?? '0x',
      value: bid,
      gasLimit: 100_000n,
      maxFeePerGas: 2n * GWEI,
      maxPriorityFeePerGas: GWEI,
    });
  }

  const head = async () => BigInt(await rpc<string>('eth_blockNumber'));
  const hashOf = (raw: string) => Transaction.from(raw).hash!;

  /** Mines once the relay got the target's round, and answers the block's transaction hashes. */
  async function mineRound(target: string): Promise<{ bundle: ReceivedBundle; txs: string[] }> {
    const bundle = await relay.waitFor((b) => b.txs.some((raw) => hashOf(raw) === target), 20_000);
    await relay.settled();
    await rpc('evm_mine');
    const block = await rpc<{ transactions: string[] }>('eth_getBlockByNumber', ['latest', false]);
    return { bundle, txs: block.transactions };
  }

  /** The source's entries of `target` as the tenant reads them (raw text: amounts are exact JSON numbers). */
  const entriesOf = async (target: string) => stack.request('GET', `/v1/payouts/tx/${target}`, { key: tenantKey });

  it('a wallet swaps through POST /v1/rpc; a mev-share-client searcher sees the hint and backruns; [target, backrun] is mined; the source is credited its exact share', async () => {
    const client = searcher(searchers[0]!);
    const { hintOf } = await listen(client);
    const target = await swap();
    const hint = await hintOf(target);
    // MEV-Share's defaults: the hash, and the swap's pool and event only (no amounts, no calldata).
    expect(hint.callData).toBeUndefined();
    expect(hint.to).toBeUndefined();
    expect(hint.logs).toEqual([{ address: expect.stringMatching(/^0x/), topics: [expect.any(String)], data: '0x' }]);
    expect(hint.logs![0]!.address.toLowerCase()).toBe(dex.pairAddress(token));
    // Private: the node has not seen it.
    expect(await rpc('eth_getTransactionByHash', [target])).toBeNull();

    const bid = 10n ** 16n; // 0.01 ETH
    const raw = await backrun(searchers[0]!, bid);
    const at = await head();
    const { bundleHash } = await client.sendBundle({
      inclusion: { block: Number(at + 1n), maxBlock: Number(at + 5n) },
      body: [{ hash: target }, { tx: raw, canRevert: false }],
    });
    expect(bundleHash).toMatch(/^0x[0-9a-f]{64}$/);

    const before = await rpc<string>('eth_getBalance', [treasury.address, 'latest']);
    const { bundle, txs } = await mineRound(target);
    expect(bundle.txs.map(hashOf)).toEqual([target, hashOf(raw)]);
    expect(txs).toEqual([target, hashOf(raw)]);
    expect(BigInt(await rpc<string>('eth_getBalance', [treasury.address, 'latest'])) - BigInt(before)).toBe(bid);

    // Two confirmations (ORDERFLOW_CONFIRMATIONS=2): one more block.
    await rpc('evm_mine');
    const entries = await eventually('the entry', async () => {
      const res = await entriesOf(target);
      return res.status === 200 && res.body.length === 1 ? res : false;
    });
    const share = (bid * SHARE_BPS) / 10_000n; // 0.009 ETH
    expect(entries.body[0]).toMatchObject({ sourceId: source, chainId: 1, type: 'mev', reference: target, status: 'PENDING', asset: 'ETH' });
    expect(entries.text).toContain(`"amount":0.009,`);
    expect(share).toBe(9n * 10n ** 15n);
    const cashback = await stack.request('GET', `/v1/cashback/source/${source}`, { key: tenantKey });
    expect(cashback.text).toMatch(/"chainId" ?: ?1, ?"asset" ?: ?"ETH", ?"amount" ?: ?0\.009,/);

    // Automatic settlement pays it: the treasury sends the 0.009 ETH (its own transaction does not count as captured value later).
    const recipient = Wallet.createRandom().address;
    const payout = await stack.request('POST', `/v1/cashback/source/${source}/payout`, {
      key: tenantKey,
      body: { address: recipient, chainId: 1, asset: 'ETH' },
    });
    expect(payout.status).toBe(201);
    const sent = await eventually('the payout sent', async () => {
      const p = await stack.request('GET', `/v1/cashback/payout/${payout.body.id}`, { key: tenantKey });
      return p.body.txHash ? p.body.txHash : false;
    });
    await eventually('in the pool', async () => (await rpc('eth_getTransactionByHash', [sent])) !== null);
    await rpc('evm_mine');
    await rpc('evm_mine');
    await eventually('PAID', async () => (await stack.request('GET', `/v1/cashback/payout/${payout.body.id}`, { key: tenantKey })).body.status === 'PAID');
    expect(BigInt(await rpc<string>('eth_getBalance', [recipient, 'latest']))).toBe(share);
  });

  it('two searchers: the higher bid wins; the lower backrun is never sent nor mined', async () => {
    const [low, high] = [searcher(searchers[1]!), searcher(searchers[2]!)];
    const listening = await Promise.all([listen(low), listen(high)]);
    const target = await swap();
    await Promise.all(listening.map((l) => l.hintOf(target)));
    const at = await head();
    const inclusion = { block: Number(at + 1n), maxBlock: Number(at + 3n) };
    const lowRaw = await backrun(searchers[1]!, 2n * 10n ** 16n);
    const highRaw = await backrun(searchers[2]!, 3n * 10n ** 16n);
    await Promise.all([
      low.sendBundle({ inclusion, body: [{ hash: target }, { tx: lowRaw, canRevert: false }] }),
      high.sendBundle({ inclusion, body: [{ hash: target }, { tx: highRaw, canRevert: false }] }),
    ]);
    const { txs } = await mineRound(target);
    expect(txs).toEqual([target, hashOf(highRaw)]);
    expect(relayed.has(hashOf(lowRaw))).toBe(false);
    await rpc('evm_mine');
    await rpc('evm_mine');
    expect(await rpc('eth_getTransactionReceipt', [hashOf(lowRaw)])).toBeNull();
    const entries = await eventually('the entry', async () => {
      const res = await entriesOf(target);
      return res.body.length === 1 ? res : false;
    });
    expect(entries.text).toContain('"amount":0.027,');
  });

  it('a reverting backrun is refused and never included; a withheld hint never reaches the stream; a transaction without bids still lands privately', async () => {
    const client = searcher(searchers[0]!);
    const { hintOf } = await listen(client);
    // The raw stream too, to look for anything the sender withheld.
    const raw = await fetch(`${stack.baseUrl}/v1/mev/stream`);
    const reader = raw.body!.getReader();
    let streamText = '';
    const pump = (async () => {
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
        if (done) return;
        streamText += Buffer.from(value!).toString('utf8');
      }
    })();

    // Only the hash: eth_sendPrivateTransaction with MEV-Share's parameters.
    const provider = walletProvider();
    const wallet = new Wallet(user.privateKey, provider);
    const data = dex.a.UniswapV2Router02!.iface.encodeFunctionData('swapExactETHForTokens', [0, [dex.weth, token], user.address, MaxUint256]);
    const signed = await wallet.signTransaction(
      await wallet.populateTransaction({ to: dex.router, data, value: ETH, gasLimit: 300_000n, maxFeePerGas: 2n * GWEI, maxPriorityFeePerGas: GWEI }),
    );
    const target = hashOf(signed);
    const at = await head();
    const sent = await provider.send('eth_sendPrivateTransaction', [
      { tx: signed, maxBlockNumber: `0x${(at + 10n).toString(16)}`, preferences: { privacy: { hints: ['hash'] } } },
    ]);
    provider.destroy();
    expect(sent).toBe(target);
    const hint = await hintOf(target);
    expect({ ...hint }).toEqual({
      hash: target,
      logs: undefined,
      to: undefined,
      functionSelector: undefined,
      callData: undefined,
      gasUsed: undefined,
      mevGasPrice: undefined,
    });

    // A backrun that reverts (a token transfer of more than it holds) with canRevert false.
    const erc20 = dex.a.PlainToken!.iface;
    const reverting = await backrun(searchers[0]!, 10n ** 16n, { to: token, data: erc20.encodeFunctionData('transfer', [treasury.address, 10n ** 30n]) });
    await expect(
      client.sendBundle({ inclusion: { block: Number(at + 1n), maxBlock: Number(at + 3n) }, body: [{ hash: target }, { tx: reverting, canRevert: false }] }),
    ).rejects.toThrow(/reverts/);
    // One that pays nothing.
    const nothing = await backrun(searchers[0]!, 0n, { to: searchers[0]!.address });
    await expect(client.sendBundle({ inclusion: { block: Number(at + 1n) }, body: [{ hash: target }, { tx: nothing, canRevert: false }] })).rejects.toThrow(
      /pays nothing/,
    );

    const { bundle, txs } = await mineRound(target);
    expect(bundle.txs.map(hashOf)).toEqual([target]);
    expect(txs).toEqual([target]);
    expect(await rpc('eth_getTransactionReceipt', [hashOf(reverting)])).toBeNull();
    // Every transaction the node got came from the relay; the stream never carried the calldata or the sender.
    await reader.cancel();
    await pump;
    expect(streamText).toContain(target.slice(2));
    expect(streamText).not.toContain(data.slice(10, 74));
    expect(streamText.toLowerCase()).not.toContain(user.address.slice(2).toLowerCase());
  });

  it('answers a wallet’s reads, refuses bad transactions with why, and refuses other writes and unsigned or foreign sources', async () => {
    const url = `/v1/rpc?source=${source}&key=${tenantKey}`;
    const call = async (method: string, params: unknown[]) => (await stack.request('POST', url, { body: { jsonrpc: '2.0', id: 7, method, params } })).body;
    expect(await call('eth_chainId', [])).toEqual({ jsonrpc: '2.0', id: 7, result: '0x1' });
    expect((await call('eth_sendTransaction', [{}])).error).toMatchObject({ code: -32601, message: expect.stringMatching(/not served/) });
    const wallet = new Wallet(user.privateKey);
    const nonce = Number(await rpc<string>('eth_getTransactionCount', [user.address, 'latest']));
    const base = { chainId: 1, type: 2, to: treasury.address, value: 1n, gasLimit: 21_000n, maxFeePerGas: GWEI, maxPriorityFeePerGas: GWEI };
    const refusals: Array<[string, string, RegExp]> = [
      ['wrong chain', await wallet.signTransaction({ ...base, chainId: 5, nonce }), /chain 5/],
      // The DEX's deployer (account 0) has used nonces whatever ran before.
      ['used nonce', await new Wallet(devWallet(0).privateKey).signTransaction({ ...base, nonce: 0 }), /nonce too low/],
      ['future nonce', await wallet.signTransaction({ ...base, nonce: nonce + 3 }), /nonce too high/],
      ['no funds', await new Wallet(Wallet.createRandom().privateKey).signTransaction({ ...base, nonce: 0 }), /insufficient funds/],
      ['garbage', '0x02deadbeef', /could not be decoded/],
    ];
    for (const [what, signed, reason] of refusals) {
      const reply = await call('eth_sendRawTransaction', [signed]);
      expect(`${what}: ${reply.error?.code} ${reply.error?.message}`).toMatch(new RegExp(`^${what}: -32000 .*${reason.source}`));
    }
    // Batches answer each request.
    const batch = await stack.request('POST', url, {
      body: [
        { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] },
        { jsonrpc: '2.0', id: 2, method: 'eth_sign', params: [] },
      ],
    });
    expect(batch.body.map((r: { id: number; error?: { code: number } }) => [r.id, r.error?.code ?? null])).toEqual([
      [1, null],
      [2, -32601],
    ]);
    // Another tenant's key may not send for this source; a key without the rpc scope may not send at all.
    const other = await stack.createKey({ scopes: ['rpc'] });
    expect((await stack.request('POST', `/v1/rpc?source=${source}&key=${other}`, { body: { jsonrpc: '2.0', id: 1, method: 'eth_chainId' } })).status).toBe(404);
    const reader = await stack.createKey({ scopes: ['payouts:read'] });
    expect((await stack.request('POST', `/v1/rpc?source=${source}`, { key: reader, body: { jsonrpc: '2.0', id: 1, method: 'eth_chainId' } })).status).toBe(403);
    // Searchers must sign; each signing address has its own rate limit (MEV_RATE_LIMIT_BURST 20).
    const unsigned = await stack.request('POST', '/v1/mev', { body: { jsonrpc: '2.0', id: 1, method: 'mev_sendBundle', params: [] } });
    expect(unsigned.status).toBe(401);
    const presign = async (signer: HDNodeWallet) => {
      const body = JSON.stringify({ params: [], method: 'mev_simBundle', id: 1, jsonrpc: '2.0' });
      const signature = `${signer.address}:${await signer.signMessage(keccakText(body))}`;
      return () => stack.request('POST', '/v1/mev', { rawBody: body, headers: { 'content-type': 'application/json', 'x-flashbots-signature': signature } });
    };
    const signed = async (signer: HDNodeWallet) => (await presign(signer))();
    // Signed first, then sent at once: 50 against a bucket of 20 refilled at 10/s, however slow the machine.
    const send = await presign(searchers[2]!);
    const flood = await Promise.all(Array.from({ length: 50 }, () => send()));
    const limited = flood.find((r) => r.status === 429)!;
    expect(limited).toBeDefined();
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(limited.body).toMatchObject({ error: true, name: 'RateLimited', message: expect.stringContaining(searchers[2]!.address.toLowerCase()) });
    const otherSearcher = await signed(searchers[1]!);
    expect(otherSearcher.status).toBe(200);
    expect(otherSearcher.body.error).toMatchObject({ code: -32602 });
  });

  /** The orderflow service as a process of its own (built code), so a test can kill it. */
  function orderflowProcess(extra: Record<string, string> = {}): ChildProcess {
    const env = { ...stack.env, ORDERFLOW_DB_POOL_SIZE: '3', LOG_FORMAT: 'json', ...extra };
    const child = spawn(process.execPath, [join(ROOT, 'apps', 'orderflow-service', 'dist', 'main.js')], { cwd: ROOT, env, stdio: 'ignore' });
    children.push(child);
    return child;
  }
  const exited = (child: ChildProcess) =>
    new Promise<NodeJS.Signals | number | null>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve(child.signalCode ?? child.exitCode);
      child.once('exit', (code, signal) => resolve(signal ?? code));
    });

  it.each([['after-observe'], ['after-publish']])('a service killed (SIGKILL) %s credits exactly once after a restart', async (at) => {
    while (stack.orderflowReplicas.length > 0) await stack.orderflowReplicas.shift()!.close();
    const dying = orderflowProcess({ ORDERFLOW_FAILPOINT: at });
    await eventually(
      'the orderflow process up',
      async () => (await stack.request('GET', '/health/services')).body.services['orderflow-service'].state === 'up',
      20_000,
    );
    const client = searcher(searchers[1]!);
    const { hintOf } = await listen(client);
    const target = await swap();
    await hintOf(target);
    const bid = 4n * 10n ** 16n;
    const raw = await backrun(searchers[1]!, bid);
    const h = await head();
    await client.sendBundle({ inclusion: { block: Number(h + 1n), maxBlock: Number(h + 3n) }, body: [{ hash: target }, { tx: raw, canRevert: false }] });
    const { txs } = await mineRound(target);
    expect(txs).toEqual([target, hashOf(raw)]);
    await rpc('evm_mine');
    expect(await exited(dying)).toBe('SIGKILL');
    const captured = await stack.db.query<{ status: string }>('SELECT status FROM orderflow.captures WHERE target_hash = $1', [target]);
    expect(captured.map((c) => c.status)).toEqual([at === 'after-observe' ? 'observed' : 'credited']);
    if (at === 'after-observe') expect((await entriesOf(target)).body).toEqual([]);
    // Back up (in process again): the credit is made, or its event published again, once.
    await stack.addOrderflowReplica();
    await eventually('the entry', async () => (await entriesOf(target)).body.length === 1, 20_000);
    await eventually('the outbox relayed', async () => (await stack.db.query('SELECT 1 FROM orderflow.outbox WHERE published_at IS NULL')).length === 0);
    await rpc('evm_mine');
    const entries = await stack.db.query<{ amount: string }>('SELECT amount::text FROM payout.entries WHERE reference = $1', [target]);
    expect(entries).toEqual([{ amount: '0.036' }]);
  });

  it('a block reorged away before its confirmations makes no entry; its target is pending again and auctioned again', async () => {
    const snapshot = await rpc<string>('evm_snapshot');
    const client = searcher(searchers[2]!);
    const { hintOf } = await listen(client);
    const target = await swap();
    await hintOf(target);
    const raw = await backrun(searchers[2]!, 5n * 10n ** 16n);
    const h = await head();
    await client.sendBundle({ inclusion: { block: Number(h + 1n), maxBlock: Number(h + 5n) }, body: [{ hash: target }, { tx: raw, canRevert: false }] });
    const { bundle, txs } = await mineRound(target);
    expect(txs).toEqual([target, hashOf(raw)]);
    const capture = () => stack.db.query<{ status: string }>('SELECT status FROM orderflow.captures WHERE target_hash = $1', [target]);
    await eventually('the capture observed', async () => (await capture()).length === 1);
    // Another chain from the block before: the capture's block is replaced by an empty one.
    expect(await rpc('evm_revert', [snapshot])).toBe(true);
    await rpc('evm_mine');
    await rpc('evm_mine');
    await eventually('the capture forgotten', async () => (await capture()).length === 0);
    const [tx] = await stack.db.query<{ status: string }>('SELECT status FROM orderflow.private_txs WHERE hash = $1', [target]);
    expect(tx!.status).toBe('pending');
    // Auctioned again for a block of the new chain (the winning bid again, re-simulated on it).
    const again = await relay.waitFor((b) => BigInt(b.blockNumber) > BigInt(bundle.blockNumber) && b.txs.some((t) => hashOf(t) === target));
    expect(again.txs.map(hashOf)).toEqual([target, hashOf(raw)]);
    await rpc('evm_mine');
    expect((await entriesOf(target)).body).toEqual([]);
    expect(await stack.db.query('SELECT 1 FROM payout.entries WHERE reference = $1', [target])).toEqual([]);
  });
});
