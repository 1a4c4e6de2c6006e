import type { IntentRecord } from '@tradeinfra/contracts';
import { devWallet, eventually, HardhatNode, LocalDex, LocalRelay, mined, SigningWebhook } from '@tradeinfra/test-support';
import { keccak256, MaxUint256, Transaction } from 'ethers';
import { LaunchDriver, NotificationSink, startMempoolStack } from './execution-support.js';
import type { Stack } from './harness.js';

/**
 * Independent review of same-block launches (docs/design/pending-launches.md): what a
 * user or an attacker meets that mempool-launch.spec.ts does not drive. A local chain that does
 * not automine and mines its pool in arrival order (FIFO), the whole product following its
 * mempool over the WebSocket, no relays: the buys go to the node right behind the launch.
 * Nothing is mined until a test says so.
 */
const CHAIN_ID = 31337;
const ETH = 10n ** 18n;
const GWEI = 10n ** 9n;
const SUPPLY = 10n ** 27n;

interface Block {
  number: string;
  transactions: string[];
}

describe('same-block launches under review: spam, several launches, other transaction types, late intents, cancel and expiry', () => {
  let node: HardhatNode;
  let dex: LocalDex;
  let stack: Stack;
  let key: string;
  let secret = '';
  let driver: LaunchDriver;
  let signer: SigningWebhook;
  let sink: NotificationSink;
  /** Signed by the development signer (DEV_SIGNER_KEYS). */
  const wallets = Array.from({ length: 10 }, (_, i) => devWallet(i + 1));
  /** Signed by the signing webhook only (not development keys). */
  const hooked = [devWallet(11), devWallet(12)];
  /** Someone with ETH and none of the watched tokens. */
  const attacker = devWallet(19);
  const rpc = <T = any>(method: string, params: unknown[] = []) => node.rpc.call<T>(method, params);
  const expiry = () => Math.floor(Date.now() / 1000) + 3600;

  beforeAll(async () => {
    node = await HardhatNode.start({ chainId: CHAIN_ID });
    dex = await LocalDex.deploy(node);
    await rpc('evm_setAutomine', [false]);
    stack = await startMempoolStack(node, dex, wallets, {
      EXPIRY_SWEEP_INTERVAL_MS: '100',
      SIGNER_TIMEOUT_MS: '20000',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
    });
    key = await stack.createKey();
    driver = new LaunchDriver(stack, node, dex, () => key, SUPPLY / 10n);
    secret = (await stack.request('GET', '/v1/intents/notifications/secret', { key })).body.secret;
    signer = await new SigningWebhook(() => secret, hooked).start();
    sink = await new NotificationSink(() => secret).start();
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
    await signer?.close();
    await sink?.close();
    await node?.stop();
  });

  const create = (body: Record<string, unknown>) => driver.create(body);

  /** The service recognises a pending launch of `token` now. */
  const watching = (token: string) => driver.watchingPending(CHAIN_ID, token);

  const approvedToken = () => driver.approvedToken(SUPPLY);

  const addLiquidityETH = (token: string, amount = SUPPLY / 10n, to: string = dex.owner) =>
    dex.a.UniswapV2Router02!.iface.encodeFunctionData('addLiquidityETH', [token, amount, 0, 0, to, expiry()]);

  /** Sent from an unlocked account, not mined. */
  const pendingTx = (from: string, to: string, data: string, value = 0n) =>
    rpc<string>('eth_sendTransaction', [{ from, to, data, value: `0x${value.toString(16)}`, gas: '0x7a1200' }]);

  const nextBlock = async () => BigInt(await rpc<string>('eth_blockNumber')) + 1n;
  const receipt = (hash: string) => rpc<{ status: string; blockNumber: string } | null>('eth_getTransactionReceipt', [hash]);

  /** Mines one block once every intent is decided (its buy in the node's pool, or terminal); answers the records and that block. */
  async function mineWhenDecided(intents: IntentRecord[]): Promise<{ records: Map<string, IntentRecord>; block: Block }> {
    const ids = intents.map((i) => i.id);
    await eventually('every intent decided', () => driver.decided(ids), 30_000);
    await rpc('evm_mine');
    await eventually('every outcome recorded', () => driver.terminal(ids), 30_000);
    const block = await rpc<Block>('eth_getBlockByNumber', ['latest', false]);
    return { records: new Map(await Promise.all(ids.map(async (id) => [id, await driver.get(id)] as const))), block };
  }

  it('spam naming a watched token is not its launch (an addLiquidityETH that reverts, liquidity for another token, liquidity on another DEX): the real launch behind it is bought in its block', async () => {
    const token = await approvedToken();
    // Another token of the owner's (its liquidity's LP tokens sent to the watched token's address,
    // so its calldata names it), and another Uniswap V2 deployment (its own factory, router and
    // WETH) where the watched token gets liquidity too.
    const other = await approvedToken();
    const otherDex = await LocalDex.deploy(node);
    await mined(node, dex.owner, token, dex.a.PlainToken!.iface.encodeFunctionData('approve', [otherDex.router, MaxUint256]));
    const intent = await create({ wallet: wallets[0]!.address, tokenAddress: token, bribe: '1000', firstOrFail: true });
    await watching(token);
    const launchBlock = await nextBlock();
    // 1. Someone who holds none of the token "launches" it: the router's transferFrom fails.
    const reverting = await pendingTx(attacker.address, dex.router, addLiquidityETH(token), ETH);
    // 2. The first liquidity of another token, naming the watched one (as the LP tokens' recipient).
    const otherToken = await pendingTx(dex.owner, dex.router, addLiquidityETH(other, SUPPLY / 10n, token), ETH);
    // 3. The watched token's first liquidity, but on a DEX that is not the chain's.
    const otherDexLaunch = await pendingTx(dex.owner, otherDex.router, addLiquidityETH(token, SUPPLY / 100n), ETH);
    // The real launch, last.
    const launch = await pendingTx(dex.owner, dex.router, addLiquidityETH(token), 5n * ETH);
    const { records, block } = await mineWhenDecided([intent]);
    const record = records.get(intent.id)!;
    // The spam is what it claims to be.
    expect((await receipt(reverting))!.status).toBe('0x0');
    expect((await receipt(otherToken))!.status).toBe('0x1');
    expect((await receipt(otherDexLaunch))!.status).toBe('0x1');
    // Nothing was sent behind any of the spam: the one buy is right behind the real launch, in its block.
    expect(BigInt(block.number)).toBe(launchBlock);
    expect(block.transactions).toEqual([reverting, otherToken, otherDexLaunch, launch, record.txHash]);
    expect(record).toMatchObject({
      status: 'completed',
      statusReason: null,
      launch: { type: 'public_transaction', txHash: launch, blockNumber: Number(launchBlock) },
    });
    expect(await dex.balanceOf(token, wallets[0]!.address)).toBeGreaterThan(0n);
  }, 60_000);

  it('two watched tokens launched in the same block by two pending transactions: each token is bought in that block, behind its own launch', async () => {
    const [t1, t2] = [await approvedToken(), await approvedToken()];
    const i1 = await create({ wallet: wallets[1]!.address, tokenAddress: t1, bribe: '100', firstOrFail: true });
    const i2 = await create({ wallet: wallets[2]!.address, tokenAddress: t2, bribe: '100', firstOrFail: true });
    await watching(t1);
    await watching(t2);
    const launchBlock = await nextBlock();
    const l1 = await pendingTx(dex.owner, dex.router, addLiquidityETH(t1), 2n * ETH);
    const l2 = await pendingTx(dex.owner, dex.router, addLiquidityETH(t2), 3n * ETH);
    const { records, block } = await mineWhenDecided([i1, i2]);
    const [r1, r2] = [records.get(i1.id)!, records.get(i2.id)!];
    expect(BigInt(block.number)).toBe(launchBlock);
    // Both launches and both buys, each buy after its launch (the other launch may sit between).
    expect([...block.transactions].sort()).toEqual([l1, l2, r1.txHash, r2.txHash].sort());
    const at = (h: string | null) => block.transactions.indexOf(h!);
    expect(at(l1)).toBe(0);
    expect(at(r1.txHash)).toBeGreaterThan(at(l1));
    expect(at(r2.txHash)).toBeGreaterThan(at(l2));
    expect(r1).toMatchObject({ status: 'completed', launch: { type: 'public_transaction', txHash: l1, blockNumber: Number(launchBlock) } });
    expect(r2).toMatchObject({ status: 'completed', launch: { type: 'public_transaction', txHash: l2, blockNumber: Number(launchBlock) } });
    expect(await dex.balanceOf(t1, wallets[1]!.address)).toBeGreaterThan(0n);
    expect(await dex.balanceOf(t2, wallets[2]!.address)).toBeGreaterThan(0n);
  }, 60_000);

  it.each([
    ['a legacy (type 0, EIP-155)', 0],
    ['an EIP-2930 (type 1)', 1],
  ] as const)(
    'a launch sent as %s transaction is seen pending and bought behind, in its block',
    async (_name, type) => {
      const token = await approvedToken();
      const w = wallets[3 + type]!;
      const intent = await create({ wallet: w.address, tokenAddress: token, bribe: '100', firstOrFail: true });
      await watching(token);
      // The DEX owner is the node's first account: the development mnemonic's first key.
      const owner = devWallet(0);
      expect(owner.address.toLowerCase()).toBe(dex.owner);
      const nonce = Number(BigInt(await rpc<string>('eth_getTransactionCount', [dex.owner, 'pending'])));
      const raw = await owner.signTransaction({
        type,
        chainId: CHAIN_ID,
        nonce,
        to: dex.router,
        data: addLiquidityETH(token),
        value: 2n * ETH,
        gasLimit: 8_000_000n,
        gasPrice: GWEI,
        ...(type === 1 ? { accessList: [{ address: token, storageKeys: [] }] } : {}),
      });
      const launchBlock = await nextBlock();
      const launch = await rpc<string>('eth_sendRawTransaction', [raw]);
      // The node reports it as that type (and a legacy one as replay-protected).
      const seen = await rpc<{ type: string; v: string }>('eth_getTransactionByHash', [launch]);
      expect(Number(seen.type)).toBe(type);
      if (type === 0) expect([2 * CHAIN_ID + 35, 2 * CHAIN_ID + 36]).toContain(Number(seen.v));
      const { records, block } = await mineWhenDecided([intent]);
      const record = records.get(intent.id)!;
      expect(BigInt(block.number)).toBe(launchBlock);
      expect(block.transactions).toEqual([launch, record.txHash]);
      expect(record).toMatchObject({
        status: 'completed',
        launch: { type: 'public_transaction', txHash: launch, blockNumber: Number(launchBlock) },
      });
    },
    60_000,
  );

  it('an intent created while its token’s launch is pending (already recognised) is bought in the launch block too, firstOrFail included', async () => {
    const token = await approvedToken();
    const early = await create({ wallet: wallets[5]!.address, tokenAddress: token, bribe: '500' });
    await watching(token);
    const launchBlock = await nextBlock();
    const launch = await pendingTx(dex.owner, dex.router, addLiquidityETH(token), 5n * ETH);
    // The launch is recognised and acted on: the first intent's buy is in the pool behind it.
    await eventually('the first intent decided', () => driver.decided([early.id]), 30_000);
    expect(await receipt(launch)).toBeNull();
    const late = await create({ wallet: wallets[6]!.address, tokenAddress: token, bribe: '100', firstOrFail: true });
    const { records, block } = await mineWhenDecided([early, late]);
    const [e, l] = [records.get(early.id)!, records.get(late.id)!];
    expect(BigInt(block.number)).toBe(launchBlock);
    expect(block.transactions).toEqual([launch, e.txHash, l.txHash]);
    for (const r of [e, l]) {
      expect(r).toMatchObject({ status: 'completed', launch: { type: 'public_transaction', txHash: launch, blockNumber: Number(launchBlock) } });
    }
    expect(await dex.balanceOf(token, wallets[6]!.address)).toBeGreaterThan(0n);
  }, 60_000);

  it('behind a pending launch, an intent cancelled while its buy is being signed, and one that expires meanwhile, send nothing; a submitted buy cannot be cancelled and lands', async () => {
    const token = await approvedToken();
    const [x, e] = [hooked[0]!, hooked[1]!];
    const y = wallets[7]!;
    const notify = { notificationWebhookUrl: sink.url };
    // Highest bribe first: Y is checked and sent first, then X and E, whose signatures are held.
    const yIntent = await create({ wallet: y.address, tokenAddress: token, bribe: '9000', ...notify });
    const xIntent = await create({ wallet: x.address, tokenAddress: token, bribe: '500', webhookUrl: signer.url, webhookProtocol: 'tradeinfra', ...notify });
    const eIntent = await create({
      wallet: e.address,
      tokenAddress: token,
      bribe: '100',
      webhookUrl: signer.url,
      webhookProtocol: 'tradeinfra',
      // Long enough to be claimed and asked to sign on a loaded box, short enough to expire while held.
      expiry: Math.floor(Date.now() / 1000) + 10,
      ...notify,
    });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    signer.behaviour.set(x.address.toLowerCase(), { gate: () => held });
    signer.behaviour.set(e.address.toLowerCase(), {
      gate: () => eventually('E expired', async () => (await driver.get(eIntent.id)).status === 'expired', 25_000).then(() => undefined),
    });
    await watching(token);
    const nonces = await Promise.all([x, e].map((w) => rpc<string>('eth_getTransactionCount', [w.address, 'latest'])));
    const launchBlock = await nextBlock();
    const launch = await pendingTx(dex.owner, dex.router, addLiquidityETH(token), 5n * ETH);
    try {
      await eventually('X and E being signed', () => signer.requestsFor(xIntent.id).length === 1 && signer.requestsFor(eIntent.id).length === 1, 30_000);
      const cancelled = await stack.request<IntentRecord>('POST', `/v1/intent/${xIntent.id}/cancel`, { key });
      expect(cancelled.status).toBe(200);
      expect(cancelled.body).toMatchObject({ status: 'cancelled', txHash: null });
      await eventually('Y submitted', () => driver.decided([yIntent.id]), 30_000);
      // Y's buy is with the node: too late to cancel, one by one or in bulk.
      const one = await stack.request('POST', `/v1/intent/${yIntent.id}/cancel`, { key });
      expect(one.status).toBe(409);
      expect(one.body.details).toMatchObject({ status: 'pending', executing: true });
      const bulk = await stack.request('DELETE', '/v1/intents', { key, body: { ids: [yIntent.id] } });
      expect(bulk.status).toBe(200);
      expect(bulk.body).toEqual([{ id: yIntent.id, status: 'pending', cancelled: false, reason: 'executing' }]);
    } finally {
      release();
    }
    const { records, block } = await mineWhenDecided([yIntent, xIntent, eIntent]);
    expect(BigInt(block.number)).toBe(launchBlock);
    expect(block.transactions).toEqual([launch, records.get(yIntent.id)!.txHash]);
    expect(records.get(yIntent.id)).toMatchObject({ status: 'completed', launch: { type: 'public_transaction', txHash: launch } });
    expect(records.get(xIntent.id)).toMatchObject({ status: 'cancelled', txHash: null });
    expect(records.get(eIntent.id)).toMatchObject({ status: 'expired', txHash: null });
    // Neither X nor E sent anything, now or later.
    await rpc('evm_mine');
    expect(await Promise.all([x, e].map((w) => rpc<string>('eth_getTransactionCount', [w.address, 'latest'])))).toEqual(nonces);
    for (const w of [x, e]) expect(await dex.balanceOf(token, w.address)).toBe(0n);
    const types = (id: string) => sink.for(id).map((n) => n.type);
    const expected: [string, string[]][] = [
      [yIntent.id, ['intent_created', 'intent_tx_pending', 'intent_completed']],
      [xIntent.id, ['intent_created', 'intent_cancelled']],
      [eIntent.id, ['intent_created', 'intent_expired']],
    ];
    await eventually('notifications delivered', () => expected.every(([id, t]) => types(id).join() === t.join()), 15_000).catch(() => undefined);
    for (const [id, t] of expected) expect(types(id)).toEqual(t);
  }, 60_000);

  // Last in this node: it moves the chain's clock ahead of the wall clock.
  it('a buy sent behind a pending launch whose expiry passes before the launch block: it reverts there, buys nothing and pays neither fee nor bribe', async () => {
    const token = await approvedToken();
    const w = wallets[8]!;
    const feeRecipient = devWallet(18).address;
    const intentExpiry = Math.floor(Date.now() / 1000) + 30;
    const intent = await create({ wallet: w.address, tokenAddress: token, bribe: ETH.toString(), feeBps: 1000, feeRecipient, expiry: intentExpiry });
    await watching(token);
    const balances = () => Promise.all([w.address, feeRecipient].map(async (a) => BigInt(await rpc<string>('eth_getBalance', [a, 'latest']))));
    const before = await balances();
    const launchBlock = await nextBlock();
    const launch = await pendingTx(dex.owner, dex.router, addLiquidityETH(token), 5n * ETH);
    await eventually('the buy sent', () => driver.decided([intent.id]), 30_000);
    const sent = await driver.get(intent.id);
    expect(sent).toMatchObject({ status: 'pending', txHash: expect.any(String) });
    // The launch block comes after the intent's expiry.
    await rpc('evm_setNextBlockTimestamp', [intentExpiry + 1]);
    await rpc('evm_mine');
    await eventually('the outcome recorded', () => driver.terminal([intent.id]), 30_000);
    const block = await rpc<Block>('eth_getBlockByNumber', ['latest', false]);
    expect(BigInt(block.number)).toBe(launchBlock);
    expect(block.transactions).toEqual([launch, sent.txHash]);
    expect((await receipt(launch))!.status).toBe('0x1');
    expect((await receipt(sent.txHash!))!.status).toBe('0x0');
    // "mined and reverted → failed/reverted": the chain decided (docs/design/submission.md).
    expect(await driver.get(intent.id)).toMatchObject({ status: 'failed', statusReason: 'reverted', txHash: sent.txHash });
    expect(await dex.balanceOf(token, w.address)).toBe(0n);
    expect(await balances()).toEqual(before); // gas is free here (base fee 0, tip 0): value, fee and bribe all stayed
  }, 60_000);
});

/**
 * The bundle form (RELAY_URLS): the relay records what it receives; the test builds blocks from
 * it as a builder would (the bundle's transactions into the node's pool in its order).
 */
describe('same-block launches through a relay, under review: a cancel while signing, a launch that misses its first block', () => {
  let node: HardhatNode;
  let dex: LocalDex;
  let stack: Stack;
  let key: string;
  let secret = '';
  let relay: LocalRelay;
  let signer: SigningWebhook;
  let driver: LaunchDriver;
  const wallets = Array.from({ length: 4 }, (_, i) => devWallet(i + 1));
  const hooked = devWallet(11);
  const rpc = <T = any>(method: string, params: unknown[] = []) => node.rpc.call<T>(method, params);
  const expiry = () => Math.floor(Date.now() / 1000) + 3600;
  const hex = (n: bigint) => `0x${n.toString(16)}`;

  beforeAll(async () => {
    node = await HardhatNode.start({ chainId: CHAIN_ID });
    dex = await LocalDex.deploy(node);
    await rpc('evm_setAutomine', [false]);
    relay = await LocalRelay.start();
    stack = await startMempoolStack(node, dex, wallets, {
      RELAY_URLS_31337: relay.url,
      SIGNER_TIMEOUT_MS: '10000',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
    });
    key = await stack.createKey();
    driver = new LaunchDriver(stack, node, dex, () => key, SUPPLY / 10n);
    secret = (await stack.request('GET', '/v1/intents/notifications/secret', { key })).body.secret;
    signer = await new SigningWebhook(() => secret, [hooked]).start();
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
    await signer?.close();
    await relay?.stop();
    await node?.stop();
  });

  const create = (body: Record<string, unknown>) => driver.create(body);

  const approvedToken = () => driver.approvedToken(SUPPLY);

  const watching = (token: string) => driver.watchingPending(CHAIN_ID, token);

  /** The launch, pending, paying at most `maxFee` per gas. */
  const sendLaunch = (token: string, maxFee = GWEI) =>
    rpc<string>('eth_sendTransaction', [
      {
        from: dex.owner,
        to: dex.router,
        data: dex.a.UniswapV2Router02!.iface.encodeFunctionData('addLiquidityETH', [token, SUPPLY / 10n, 0, 0, dex.owner, expiry()]),
        value: hex(2n * ETH),
        gas: '0x7a1200',
        maxFeePerGas: hex(maxFee),
        maxPriorityFeePerGas: hex(maxFee),
      },
    ]);

  /** Builds a bundle as sent: its transactions into the node's pool, in order (the launch is already there). */
  const build = async (txs: string[]) => {
    for (const raw of txs) await rpc('eth_sendRawTransaction', [raw]).catch(() => undefined);
  };

  it('an intent cancelled while its buy is being signed: the launch’s bundle still goes, without it, and the others land in the launch block', async () => {
    const token = await approvedToken();
    const y = wallets[0]!;
    const yIntent = await create({ wallet: y.address, tokenAddress: token, bribe: '9000' });
    const xIntent = await create({ wallet: hooked.address, tokenAddress: token, bribe: '100', webhookUrl: signer.url, webhookProtocol: 'tradeinfra' });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    signer.behaviour.set(hooked.address.toLowerCase(), { gate: () => held });
    await watching(token);
    const launchBlock = BigInt(await rpc<string>('eth_blockNumber')) + 1n;
    const launch = await sendLaunch(token);
    try {
      await eventually('X being signed', () => signer.requestsFor(xIntent.id).length === 1, 30_000);
      const cancelled = await stack.request<IntentRecord>('POST', `/v1/intent/${xIntent.id}/cancel`, { key });
      expect(cancelled.status).toBe(200);
    } finally {
      release();
    }
    // X's signature comes back after the cancel: it is dropped, and the bundle goes with Y alone.
    await eventually('X signed', () => signer.requestsFor(xIntent.id)[0]!.answeredHashes.length === 1, 30_000);
    const xBuy = signer.requestsFor(xIntent.id)[0]!.answeredHashes[0]!;
    const bundle = await relay.waitFor((b) => b.txs[0] !== undefined && keccak256(b.txs[0]) === launch && b.blockNumber === hex(launchBlock));
    const yRecord = await driver.get(yIntent.id);
    expect(bundle.txs.map((raw) => keccak256(raw))).toEqual([launch, yRecord.txHash]);
    await build(bundle.txs);
    await rpc('evm_mine');
    await eventually('Y completed', async () => (await driver.get(yIntent.id)).status === 'completed', 30_000);
    const block = await rpc<Block>('eth_getBlockByNumber', ['latest', false]);
    expect(BigInt(block.number)).toBe(launchBlock);
    expect(block.transactions).toEqual([launch, yRecord.txHash]);
    expect(await driver.get(xIntent.id)).toMatchObject({ status: 'cancelled', txHash: null });
    for (const b of relay.bundles) expect(b.txs.map((raw) => keccak256(raw))).not.toContain(xBuy);
  }, 60_000);

  // A firstOrFail buy sent behind a pending launch is not bound to the block it was first sent
  // for: its code checks that the pair got its first liquidity in the block that includes it.
  it('a launch that misses the block after it was seen (its fee is below that block’s base fee): the buys go again behind it and land in the block it does get, firstOrFail included', async () => {
    const token = await approvedToken();
    const [a, b] = [wallets[1]!, wallets[2]!];
    const fof = await create({ wallet: a.address, tokenAddress: token, bribe: '9000', firstOrFail: true });
    const plain = await create({ wallet: b.address, tokenAddress: token, bribe: '100' });
    await watching(token);
    const first = BigInt(await rpc<string>('eth_blockNumber')) + 1n;
    const launch = await sendLaunch(token, GWEI);
    await relay.waitFor((x) => x.txs.length === 3 && keccak256(x.txs[0]!) === launch && x.blockNumber === hex(first));
    // The next block's base fee is above what the launch pays: that block comes without it.
    await rpc('hardhat_setNextBlockBaseFeePerGas', [hex(2n * GWEI)]);
    await rpc('evm_mine');
    expect((await rpc<Block>('eth_getBlockByNumber', ['latest', false])).transactions).toEqual([]);
    expect(await rpc('eth_getTransactionReceipt', [launch])).toBeNull();
    // Still pending: the buys go again behind it, for the block after.
    const again = await relay.waitFor((x) => x.txs[0] !== undefined && keccak256(x.txs[0]) === launch && x.blockNumber === hex(first + 1n));
    const [fofRecord, plainRecord] = [await driver.get(fof.id), await driver.get(plain.id)];
    expect(again.txs.map((raw) => keccak256(raw))).toEqual([launch, fofRecord.txHash, plainRecord.txHash]);
    // Not bound to the first block (PUSH8 <first> NUMBER EQ), but to the pair's launch block (its getReserves view).
    const fofData = Transaction.from(again.txs[1]!).data;
    expect(fofData).not.toContain(`67${first.toString(16).padStart(16, '0')}4314`);
    expect(fofData).toContain('630902f1ac');
    // The launch gets the block after, built from that bundle as sent.
    await rpc('hardhat_setNextBlockBaseFeePerGas', ['0x0']);
    await build(again.txs);
    await rpc('evm_mine');
    const block = await rpc<Block>('eth_getBlockByNumber', ['latest', false]);
    expect(BigInt(block.number)).toBe(first + 1n);
    expect(block.transactions).toEqual(again.txs.map((raw) => keccak256(raw)));
    // A bundle admits no reverting transaction: every one of it succeeds in the block it was sent for.
    const statuses = await Promise.all(block.transactions.map(async (h) => (await rpc<{ status: string }>('eth_getTransactionReceipt', [h])).status));
    expect(statuses).toEqual(['0x1', '0x1', '0x1']);
    await eventually('both outcomes recorded', () => driver.terminal([fof.id, plain.id]), 30_000);
    for (const id of [fof.id, plain.id]) {
      expect(await driver.get(id)).toMatchObject({
        status: 'completed',
        launch: { type: 'public_transaction', txHash: launch, blockNumber: Number(first + 1n) },
      });
    }
  }, 60_000);

  it('Merkle’s signature webhook behind a pending launch: told public_transaction with rawTx, its buy goes in the launch’s bundle and, alone, in a backup bundle for the block after', async () => {
    const token = await approvedToken();
    const intent = await create({ wallet: hooked.address, tokenAddress: token, bribe: '700', webhookUrl: signer.url });
    expect(intent.webhookProtocol).toBe('merkle');
    signer.behaviour.delete(hooked.address.toLowerCase());
    signer.expectIntents([{ intentId: intent.id, wallet: hooked.address }]);
    await watching(token);
    const launchBlock = BigInt(await rpc<string>('eth_blockNumber')) + 1n;
    const launch = await sendLaunch(token);
    const bundle = await relay.waitFor((b) => b.txs[0] !== undefined && keccak256(b.txs[0]) === launch && b.blockNumber === hex(launchBlock));
    const [asked] = signer.requestsFor(intent.id);
    expect(asked!.merkle).toMatchObject({
      intentId: intent.id,
      launch: { type: 'public_transaction', blockNumber: launchBlock.toString(), launchTxHash: launch },
    });
    expect(keccak256(asked!.merkle!.rawTx!)).toBe(asked!.merkle!.hash);
    const { txHash } = await driver.get(intent.id);
    expect(bundle.txs.map((raw) => keccak256(raw))).toEqual([launch, txHash]);
    // Not firstOrFail: its backup, alone, for the block after the launch's.
    await relay.waitFor((b) => b.blockNumber === hex(launchBlock + 1n) && b.txs.length === 1 && keccak256(b.txs[0]!) === txHash);
    await build(bundle.txs);
    await rpc('evm_mine');
    await eventually('bought in the launch block', async () => (await driver.get(intent.id)).status === 'completed', 30_000);
    const block = await rpc<Block>('eth_getBlockByNumber', ['latest', false]);
    expect([BigInt(block.number), block.transactions]).toEqual([launchBlock, [launch, txHash]]);
    expect((await rpc<{ from: string }>('eth_getTransactionByHash', [txHash])).from.toLowerCase()).toBe(hooked.address.toLowerCase());
  }, 60_000);
});
