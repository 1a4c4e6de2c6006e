import type { IntentRecord } from '@tradeinfra/contracts';
import { devWallet, eventually, HardhatNode, LocalDex, SigningWebhook } from '@tradeinfra/test-support';
import { Stack } from './harness.js';
import { LaunchDriver, NotificationSink } from './execution-support.js';

/**
 * Intents executed on a local chain: a hardhat node with WETH, the Uniswap V2 factory and router
 * from npm and test tokens; the whole product in front of it; a signing webhook that signs with
 * the node's development keys. The node does not automine: the test mines the block after the
 * launch once the executor has decided every intent, as a real chain would.
 */
const CHAIN_ID = 31337;
const COINBASE = '0xc014ba5ec014ba5ec014ba5ec014ba5ec014ba5e';
const ETH = 10n ** 18n;
const SUPPLY = 10n ** 27n;

describe('intent execution on a local chain', () => {
  let node: HardhatNode;
  let dex: LocalDex;
  let stack: Stack;
  let key: string;
  let secret = '';
  let signer: SigningWebhook;
  let sink: NotificationSink;
  const wallets = Array.from({ length: 16 }, (_, i) => devWallet(i + 1));
  /** Wallet 15's key is the development signer's. */
  const devSigned = wallets[15]!;

  const rpc = <T = any>(method: string, params: unknown[] = []) => node.rpc.call<T>(method, params);
  const expiry = (seconds = 3600) => Math.floor(Date.now() / 1000) + seconds;

  async function create(body: Record<string, unknown>): Promise<IntentRecord> {
    const res = await stack.request<IntentRecord>('POST', '/v1/intent', {
      key,
      body: {
        chainId: CHAIN_ID,
        bribe: '0',
        buyAmount: (ETH / 100n).toString(),
        expiry: expiry(),
        gasTip: '0',
        webhookUrl: signer.url,
        webhookProtocol: 'tradeinfra',
        notificationWebhookUrl: sink.url,
        ...body,
      },
    });
    expect(res.status).toBe(201);
    return res.body;
  }
  let driver: LaunchDriver;
  const get = (id: string) => driver.get(id);
  const decided = (ids: string[]) => driver.decided(ids);
  const terminal = (ids: string[]) => driver.terminal(ids);
  const launchAndSettle = (token: string, intents: IntentRecord[], native = ETH) => driver.launchAndSettle(token, intents, native);
  /** The intent's notifications have exactly these types (the last one awaited). */
  const notified = async (id: string, types: string[]) => {
    await eventually(
      `${id} notified ${types.join(', ')}`,
      () =>
        sink
          .for(id)
          .map((n) => n.type)
          .join() === types.join(),
      30_000,
    ).catch(() => undefined);
    expect(sink.for(id).map((n) => n.type)).toEqual(types);
  };
  const rows = (ids: string[]) =>
    stack.db.query<{ id: string; status: string; phase: string | null }>('SELECT id::text, status, phase FROM intent.intents WHERE id = ANY($1::uuid[])', [
      ids,
    ]);

  beforeAll(async () => {
    node = await HardhatNode.start({ chainId: CHAIN_ID });
    dex = await LocalDex.deploy(node);
    await rpc('evm_setAutomine', [false]);
    // A WETH/USD pool pricing ETH at $3,000 for minLiquidity.
    const usd = await dex.deployToken('PlainToken', [SUPPLY]);
    await dex.launch(usd, 30_000n * ETH, 10n * ETH);
    const stablePair = await dex.pairOf(usd);
    stack = await Stack.start({
      CHAIN_IDS: String(CHAIN_ID),
      RPC_URL_31337: node.url,
      HARDFORK_31337: 'prague',
      DEX_FACTORY_31337: dex.factory,
      DEX_ROUTER_31337: dex.router,
      WRAPPED_NATIVE_31337: dex.weth,
      DEV_SIGNER_KEYS_31337: devSigned.privateKey,
      STABLE_PAIR_31337: stablePair,
      LAUNCH_POLL_INTERVAL_MS: '100',
      EXPIRY_SWEEP_INTERVAL_MS: '100',
      SIGNER_TIMEOUT_MS: '3000',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
    });
    key = await stack.createKey();
    driver = new LaunchDriver(stack, node, dex, () => key, SUPPLY / 10n);
    secret = (await stack.request('GET', '/v1/intents/notifications/secret', { key })).body.secret;
    signer = await new SigningWebhook(() => secret, wallets).start();
    sink = await new NotificationSink(() => secret).start();
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
    await signer?.close();
    await sink?.close();
    await node?.stop();
  });

  it('buys a plain token at launch for every intent, highest bribe first, paying fee and bribe exactly', async () => {
    const token = await dex.deployToken('PlainToken', [SUPPLY]);
    const feeRecipient = wallets[14]!.address;
    const [a, b, c] = [wallets[0]!, wallets[1]!, wallets[2]!];
    const low = await create({ wallet: a.address, tokenAddress: token, bribe: '1000' });
    const high = await create({ wallet: b.address, tokenAddress: token, bribe: '5000000', feeBps: 100, feeRecipient, firstOrFail: true });
    const limited = await create({
      wallet: c.address,
      tokenAddress: token,
      bribe: '2000',
      minOut: '1',
      maxSlippageBps: 5000,
      maxBuyTax: 0.01,
      maxSellTax: 0.01,
    });
    const feeBefore = BigInt(await rpc('eth_getBalance', [feeRecipient, 'latest']));

    const done = await launchAndSettle(token, [low, high, limited]);

    for (const intent of [low, high, limited]) {
      const record = done.get(intent.id)!;
      expect(record).toMatchObject({ status: 'completed', statusReason: null });
      expect(record.txHash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(Date.parse(record.executedAt!)).toBeGreaterThan(0);
      const receipt = await rpc('eth_getTransactionReceipt', [record.txHash]);
      expect(receipt.status).toBe('0x1');
      expect(receipt.from.toLowerCase()).toBe(intent.wallet.toLowerCase());
    }
    const balances = await Promise.all([a, b, c].map((w) => dex.balanceOf(token, w.address)));
    expect(balances.every((x) => x > 0n)).toBe(true);
    // The 1 % fee, to the wei; the bribes went to the block's coinbase (no tip, base fee 0).
    expect(BigInt(await rpc('eth_getBalance', [feeRecipient, 'latest'])) - feeBefore).toBe(ETH / 100n / 100n);
    // All in the block after the launch.
    const txs = await Promise.all([high, limited, low].map((i) => rpc('eth_getTransactionReceipt', [done.get(i.id)!.txHash])));
    expect(new Set(txs.map((t) => t.blockNumber)).size).toBe(1);
    const block = BigInt(txs[0].blockNumber);
    // The records name the launch: seen in its block (this chain's mempool is not followed), the
    // transaction that gave the pair its first liquidity, in the block before the buys.
    const launch = done.get(low.id)!.launch!;
    expect(launch).toMatchObject({ type: 'block', blockNumber: Number(block - 1n) });
    const launchBlock = await rpc('eth_getBlockByNumber', [`0x${(block - 1n).toString(16)}`, false]);
    expect(launchBlock.transactions).toContain(launch.txHash);
    for (const i of [high, limited]) expect(done.get(i.id)!.launch).toEqual(launch);
    const coinbase = async (n: bigint) => BigInt(await rpc('eth_getBalance', [COINBASE, `0x${n.toString(16)}`]));
    expect((await coinbase(block)) - (await coinbase(block - 1n))).toBe(5_000_000n + 2000n + 1000n);
    // Checked highest bribe first: each quote assumes the higher bribes bought before it, so the
    // tokens expected per wei fall with the bribe (the block's order is the node's).
    const quoteOf = (i: IntentRecord) => signer.requestsFor(i.id)[0]!.request.transactions[0]!.summary;
    const perWei = [high, limited, low].map((i) => (BigInt(quoteOf(i).expectedOut) * ETH) / BigInt(quoteOf(i).swapValue));
    expect(perWei[0]!).toBeGreaterThan(perWei[1]!);
    expect(perWei[1]!).toBeGreaterThan(perWei[2]!);
    expect(BigInt(quoteOf(limited).amountOutMin)).toBe(BigInt(quoteOf(limited).expectedOut) / 2n); // maxSlippageBps 5000

    // The signer was asked once per intent, with a verifiable request naming the launch.
    for (const intent of [low, high, limited]) {
      const requests = signer.requestsFor(intent.id);
      expect(requests).toHaveLength(1);
      expect(requests[0]!.verified).toBe(true);
      expect(requests[0]!.request.transactions[0]!.summary.token.toLowerCase()).toBe(token);
    }
    expect(signer.requestsFor(high.id)[0]!.request.transactions[0]!.summary.onlyInBlock).not.toBeNull();
    // Notifications: created, then completed, each signed.
    for (const intent of [low, high, limited]) {
      await notified(intent.id, ['intent_created', 'intent_tx_pending', 'intent_completed']);
      expect(sink.for(intent.id).every((n) => n.verified)).toBe(true);
    }
  });

  it('fails taxed, honeypot and broken tokens with the reason, and buys a taxed token within the limits', async () => {
    const taxed = await dex.deployToken('TaxToken', [SUPPLY, wallets[13]!.address, 1000]); // 10 % on every transfer
    const [w3, w4, w5] = [wallets[3]!, wallets[4]!, wallets[5]!];
    const buyTax = await create({ wallet: w3.address, tokenAddress: taxed, maxBuyTax: 0.05 });
    const sellTax = await create({ wallet: w4.address, tokenAddress: taxed, maxBuyTax: 0.2, maxSellTax: 0.05 });
    const accepted = await create({ wallet: w5.address, tokenAddress: taxed, maxBuyTax: 0.2, maxSellTax: 0.25 });
    let done = await launchAndSettle(taxed, [buyTax, sellTax, accepted]);
    expect(done.get(buyTax.id)).toMatchObject({ status: 'failed', statusReason: 'buy_tax_too_high', txHash: null, statusData: { max: 0.05 } });
    expect(done.get(buyTax.id)!.statusData!.actual).toBeCloseTo(0.1, 12); // 10 %, measured (rounded down by the token)
    expect(done.get(sellTax.id)).toMatchObject({ status: 'failed', statusReason: 'sell_tax_too_high', txHash: null, statusData: { max: 0.05 } });
    expect(done.get(sellTax.id)!.statusData!.actual).toBeGreaterThan(0.05);
    expect(done.get(accepted.id)).toMatchObject({ status: 'completed' });
    expect(await dex.balanceOf(taxed, w3.address)).toBe(0n);
    expect(await dex.balanceOf(taxed, w5.address)).toBeGreaterThan(0n);
    // No signature was asked for the intents that failed a check.
    expect(signer.requestsFor(buyTax.id)).toHaveLength(0);
    expect(signer.requestsFor(sellTax.id)).toHaveLength(0);

    const honeypot = await dex.deployToken('HoneypotToken', [SUPPLY]);
    const trapped = await create({ wallet: w3.address, tokenAddress: honeypot });
    const reckless = await create({ wallet: w4.address, tokenAddress: honeypot, maxSellTax: 1 });
    done = await launchAndSettle(honeypot, [trapped, reckless]);
    expect(done.get(trapped.id)).toMatchObject({ status: 'failed', statusReason: 'honeypot', statusData: null });
    expect(done.get(reckless.id)).toMatchObject({ status: 'completed' }); // maxSellTax 1: the client accepts anything

    const broken = await dex.deployToken('RevertingToken', [SUPPLY]);
    const doomed = await create({ wallet: w5.address, tokenAddress: broken });
    done = await launchAndSettle(broken, [doomed]);
    expect(done.get(doomed.id)).toMatchObject({ status: 'failed', statusReason: 'buy_reverted' });
    await eventually('failure notified', () =>
      sink.for(doomed.id).some((n) => n.type === 'intent_ignored' && n.reason === 'buy_reverted' && n.statusReason === 'buy_reverted' && n.verified),
    );
  });

  it('checks minLiquidity at the stable pair’s price, minIn, minOut, slippage and funds', async () => {
    const token = await dex.deployToken('PlainToken', [SUPPLY]);
    const [w6, w7, w8, w9, w10, w11] = wallets.slice(6, 12) as typeof wallets;
    // The pool gets 1 ETH: worth 2 × $3,000 = 600,000 cents.
    const shallow = await create({ wallet: w6.address, tokenAddress: token, minLiquidity: '600001' });
    const deepEnough = await create({ wallet: w7.address, tokenAddress: token, minLiquidity: '600000', bribe: '10' });
    const greedy = await create({ wallet: w8.address, tokenAddress: token, minOut: (SUPPLY / 10n).toString() });
    const smallIn = await create({ wallet: w9.address, tokenAddress: token, feeBps: 5000, feeRecipient: w9.address, minIn: (ETH / 100n).toString() });
    const impact = await create({ wallet: w10.address, tokenAddress: token, buyAmount: (ETH / 2n).toString(), maxSlippageBps: 100 });
    await rpc('hardhat_setBalance', [w11.address, `0x${(ETH / 1000n).toString(16)}`]);
    const poor = await create({ wallet: w11.address, tokenAddress: token });
    const done = await launchAndSettle(token, [shallow, deepEnough, greedy, smallIn, impact, poor]);
    // Each failure stores what was measured (statusData), exactly.
    expect(done.get(shallow.id)).toMatchObject({
      status: 'failed',
      statusReason: 'liquidity_too_low',
      statusData: { minLiquidity: '600001', actual: '600000' },
    });
    expect(done.get(deepEnough.id)).toMatchObject({ status: 'completed' });
    expect(done.get(greedy.id)).toMatchObject({ status: 'failed', statusReason: 'min_out_not_met', statusData: { minOut: (SUPPLY / 10n).toString() } });
    expect(BigInt(done.get(greedy.id)!.statusData!.quoted as string)).toBeLessThan(SUPPLY / 10n);
    expect(done.get(smallIn.id)).toMatchObject({
      status: 'failed',
      statusReason: 'min_in_not_met',
      statusData: { minIn: (ETH / 100n).toString(), actual: (ETH / 200n).toString() },
    });
    expect(done.get(impact.id)).toMatchObject({ status: 'failed', statusReason: 'slippage_too_high', statusData: { maxSlippageBps: 100 } });
    expect(done.get(impact.id)!.statusData!.actual).toBeGreaterThan(100);
    expect(done.get(poor.id)).toMatchObject({ status: 'failed', statusReason: 'insufficient_funds', statusData: { balance: (ETH / 1000n).toString() } });
    await rpc('hardhat_setBalance', [w11.address, `0x${(10_000n * ETH).toString(16)}`]);
    // What the buy needs at most: its value (buyAmount + bribe) and its gas at the base fee (0 here) and tip (0).
    expect(BigInt(done.get(poor.id)!.statusData!.required as string)).toBeGreaterThanOrEqual(ETH / 100n);
  });

  it('fails only the intents whose signer misbehaves; the rest of the launch completes', async () => {
    const token = await dex.deployToken('PlainToken', [SUPPLY]);
    const cases = [
      { wallet: wallets[6]!, behaviour: 'wrong-key', reason: 'signature_invalid' },
      { wallet: wallets[7]!, behaviour: 'tamper', reason: 'signature_invalid' },
      { wallet: wallets[8]!, behaviour: 'http-500', reason: 'signer_refused' },
      { wallet: wallets[9]!, behaviour: 'not-json', reason: 'signature_invalid' },
      { wallet: wallets[10]!, behaviour: { delayMs: 4_000 }, reason: 'signer_timeout' },
    ] as const;
    const broken: IntentRecord[] = [];
    for (const c of cases) {
      signer.behaviour.set(c.wallet.address.toLowerCase(), c.behaviour);
      broken.push(await create({ wallet: c.wallet.address, tokenAddress: token }));
    }
    const unreachable = await create({ wallet: wallets[11]!.address, tokenAddress: token, webhookUrl: 'http://127.0.0.1:9/sign' });
    const unsigned = await create({ wallet: wallets[12]!.address, tokenAddress: token, webhookUrl: null, webhookProtocol: null });
    const viaDevSigner = await create({ wallet: devSigned.address, tokenAddress: token, webhookUrl: null, webhookProtocol: null });
    const fine = await create({ wallet: wallets[0]!.address, tokenAddress: token });
    try {
      const done = await launchAndSettle(token, [...broken, unreachable, unsigned, viaDevSigner, fine]);
      cases.forEach((c, i) => expect(done.get(broken[i]!.id)).toMatchObject({ status: 'failed', statusReason: c.reason, txHash: null }));
      expect(done.get(unreachable.id)).toMatchObject({ status: 'failed', statusReason: 'signer_unreachable' });
      expect(done.get(unsigned.id)).toMatchObject({ status: 'failed', statusReason: 'no_signer' });
      expect(done.get(viaDevSigner.id)).toMatchObject({ status: 'completed' });
      expect(done.get(fine.id)).toMatchObject({ status: 'completed' });
      expect(await dex.balanceOf(token, devSigned.address)).toBeGreaterThan(0n);
      // Nothing was sent for a wallet whose signer failed.
      for (const c of cases) expect(await dex.balanceOf(token, c.wallet.address)).toBe(0n);
    } finally {
      for (const c of cases) signer.behaviour.delete(c.wallet.address.toLowerCase());
    }
  });

  it('asks a webhook that takes batches once for the launch’s buys that name it; a buy it declines fails alone', async () => {
    const token = await dex.deployToken('PlainToken', [SUPPLY]);
    const [a, b, declined, alone] = [wallets[3]!, wallets[4]!, wallets[5]!, wallets[13]!];
    signer.behaviour.set(declined.address.toLowerCase(), 'refuse');
    try {
      const batched = [];
      for (const [i, w] of [a, b, declined].entries())
        batched.push(await create({ wallet: w.address, tokenAddress: token, bribe: String(3000 - i), webhookBatch: true }));
      expect(batched[0]).toMatchObject({ webhookBatch: true });
      // Same webhook, without webhookBatch: a SigningRequest of its own.
      const single = await create({ wallet: alone.address, tokenAddress: token, bribe: '1' });
      const done = await launchAndSettle(token, [...batched, single]);
      expect([...batched, single].map((i) => [done.get(i.id)!.status, done.get(i.id)!.statusReason])).toEqual([
        ['completed', null],
        ['completed', null],
        ['failed', 'signer_refused'],
        ['completed', null],
      ]);
      expect(await dex.balanceOf(token, declined.address)).toBe(0n);
      // One HMAC-checked batch for the three, in checking order (highest bribe first).
      const asked = batched.map((i) => signer.requestsFor(i.id));
      expect(asked.map((r) => r.length)).toEqual([1, 1, 1]);
      const batch = asked[0]![0]!.batch!;
      expect(batch).toMatchObject({ kind: 'signBatch', chainId: CHAIN_ID });
      expect(batch.requests.map((r) => r.intentId)).toEqual(batched.map((i) => i.id));
      expect(asked.every(([r]) => r!.verified && r!.batch?.id === batch.id)).toBe(true);
      expect(signer.requestsFor(single.id).map((r) => [r.batch, r.request.kind])).toEqual([[null, 'sign']]);
    } finally {
      signer.behaviour.delete(declined.address.toLowerCase());
    }
  });

  it('firstOrFail: a buy that misses its block fails not_included and cannot land later; others are sent again', async () => {
    const token = await dex.deployToken('PlainToken', [SUPPLY]);
    const [w1, w2] = [wallets[1]!, wallets[2]!];
    const strict = await create({ wallet: w1.address, tokenAddress: token, firstOrFail: true });
    const patient = await create({ wallet: w2.address, tokenAddress: token });
    await dex.launch(token, SUPPLY / 10n, ETH);
    await eventually('both submitted', () => decided([strict.id, patient.id]), 30_000);
    const sent = await stack.db.query<{ id: string; tx_hash: string; signed_tx: string }>(
      'SELECT id::text, tx_hash, signed_tx FROM intent.intents WHERE id = ANY($1::uuid[])',
      [[strict.id, patient.id]],
    );
    const byId = new Map(sent.map((r) => [r.id, r]));
    // The target block is mined without them (a builder left them out).
    const target = BigInt(await rpc('eth_blockNumber')) + 1n;
    for (const r of sent) expect(await rpc('hardhat_dropTransaction', [r.tx_hash])).toBe(true);
    await rpc('evm_mine');
    await eventually('strict failed', async () => (await get(strict.id)).status === 'failed', 30_000);
    expect(await get(strict.id)).toMatchObject({
      statusReason: 'not_included',
      txHash: byId.get(strict.id)!.tx_hash,
      statusData: { txHash: byId.get(strict.id)!.tx_hash, targetBlock: target.toString() },
    });
    // The other buy is sent again and lands in a later block.
    await eventually('patient buy sent again', async () => (await rpc('eth_getTransactionByHash', [byId.get(patient.id)!.tx_hash])) !== null, 30_000);
    await rpc('evm_mine');
    await eventually('patient completed', async () => (await get(patient.id)).status === 'completed', 30_000);
    expect(await dex.balanceOf(token, w2.address)).toBeGreaterThan(0n);
    // The strict buy, broadcast late by anyone, reverts: it cannot buy outside its block.
    await rpc('eth_sendRawTransaction', [byId.get(strict.id)!.signed_tx]);
    await rpc('evm_mine');
    const late = await rpc('eth_getTransactionReceipt', [byId.get(strict.id)!.tx_hash]);
    expect(BigInt(late.blockNumber)).toBeGreaterThan(BigInt(target));
    expect(late.status).toBe('0x0');
    expect(await dex.balanceOf(token, w1.address)).toBe(0n);
    expect((await get(strict.id)).status).toBe('failed');
  });

  it('cancel and expiry racing execution: exactly one outcome, and no transaction for a cancelled or expired intent', async () => {
    const token = await dex.deployToken('PlainToken', [SUPPLY]);
    const [w3, w4, w5] = [wallets[3]!, wallets[4]!, wallets[5]!];
    let cancelHeld!: () => void;
    const cancelDone = new Promise<void>((resolve) => (cancelHeld = resolve));
    signer.behaviour.set(w3.address.toLowerCase(), { gate: () => cancelDone });
    const cancelled = await create({ wallet: w3.address, tokenAddress: token, bribe: '3' });
    // Expires while its signer is still thinking.
    signer.behaviour.set(w4.address.toLowerCase(), {
      gate: () => eventually('expired', async () => (await rows([expiring.id]))[0]!.status === 'expired', 10_000).then(() => undefined),
    });
    const expiring = await create({ wallet: w4.address, tokenAddress: token, bribe: '2', expiry: expiry(3) });
    const executing = await create({ wallet: w5.address, tokenAddress: token, bribe: '1' });
    const nonces = async () => Promise.all([w3, w4].map(async (w) => BigInt(await rpc('eth_getTransactionCount', [w.address, 'pending']))));
    const noncesBefore = await nonces();
    try {
      await dex.launch(token, SUPPLY / 10n, ETH);
      await eventually('signer asked for the first intent', () => signer.requestsFor(cancelled.id).length === 1, 30_000);
      const res = await stack.request('POST', `/v1/intent/${cancelled.id}/cancel`, { key });
      expect(res.status).toBe(200);
      cancelHeld();
      await eventually('every intent decided', () => decided([cancelled.id, expiring.id, executing.id]), 30_000);
      // Submitted: too late to cancel.
      const late = await stack.request('POST', `/v1/intent/${executing.id}/cancel`, { key });
      expect(late.status).toBe(409);
      expect(late.body.details).toMatchObject({ status: 'pending', executing: true });
      await rpc('evm_mine');
      await eventually('outcomes', () => terminal([cancelled.id, expiring.id, executing.id]), 30_000);
    } finally {
      signer.behaviour.delete(w3.address.toLowerCase());
      signer.behaviour.delete(w4.address.toLowerCase());
    }
    expect(await get(cancelled.id)).toMatchObject({ status: 'cancelled', txHash: null });
    expect(await get(expiring.id)).toMatchObject({ status: 'expired', txHash: null });
    expect(await get(executing.id)).toMatchObject({ status: 'completed' });
    // The signed buys of the cancelled and the expired intent were never sent.
    expect(await nonces()).toEqual(noncesBefore);
    expect(await dex.balanceOf(token, w3.address)).toBe(0n);
    expect(await dex.balanceOf(token, w4.address)).toBe(0n);
    // One terminal notification each.
    await notified(cancelled.id, ['intent_created', 'intent_cancelled']);
    await notified(expiring.id, ['intent_created', 'intent_expired']);
    await notified(executing.id, ['intent_created', 'intent_tx_pending', 'intent_completed']);
  });

  it('many cancels fired at the launch: each intent ends once, and only executed intents spent a nonce', async () => {
    const token = await dex.deployToken('PlainToken', [SUPPLY]);
    const racers = wallets.slice(6, 12);
    const intents: IntentRecord[] = [];
    for (const w of racers)
      for (let i = 0; i < 2; i++) intents.push(await create({ wallet: w.address, tokenAddress: token, bribe: String(100 + intents.length) }));
    const before = await Promise.all(racers.map(async (w) => BigInt(await rpc('eth_getTransactionCount', [w.address, 'pending']))));
    // Half the signers take a moment: cancels land while some buys are being signed and others
    // are already submitted.
    racers.slice(0, 3).forEach((w) => signer.behaviour.set(w.address.toLowerCase(), { delayMs: 300 }));
    await dex.launch(token, SUPPLY / 10n, ETH);
    await eventually('signing started', () => intents.some((i) => signer.requestsFor(i.id).length > 0), 30_000);
    // Cancels at three moments of the round, each awaited, not timed: while the first buys sign,
    // once a buy is submitted (others still signing), and once those cancels are answered.
    const answers: Awaited<ReturnType<typeof stack.request>>[] = new Array(intents.length);
    const cancel = (moment: number) =>
      Promise.all(
        intents.map(async (i, k) => {
          if (k % 3 === moment) answers[k] = await stack.request('POST', `/v1/intent/${i.id}/cancel`, { key });
        }),
      );
    const whileSigning = cancel(0);
    await eventually('a buy submitted', async () => (await Promise.all(intents.map((i) => get(i.id)))).some((r) => r.txHash !== null), 30_000);
    await Promise.all([whileSigning, cancel(1)]);
    await cancel(2);
    racers.forEach((w) => signer.behaviour.delete(w.address.toLowerCase()));
    expect(answers.every((a) => a.status === 200 || a.status === 409)).toBe(true);
    await eventually('every intent decided', () => decided(intents.map((i) => i.id)), 30_000);
    await rpc('evm_mine');
    await eventually('outcomes', () => terminal(intents.map((i) => i.id)), 30_000);
    const final = await Promise.all(intents.map((i) => get(i.id)));
    final.forEach((f, i) => expect(answers[i]!.status === 200 ? 'cancelled' : 'completed').toBe(f.status));
    // Each wallet spent exactly one nonce per completed intent.
    const after = await Promise.all(racers.map(async (w) => BigInt(await rpc('eth_getTransactionCount', [w.address, 'latest']))));
    racers.forEach((w, k) => {
      const completed = final.filter((f) => f.wallet === w.address && f.status === 'completed').length;
      expect(after[k]! - before[k]!).toBe(BigInt(completed));
    });
    await eventually('terminal notifications', () => intents.every((i) => sink.for(i.id).some((n) => n.status !== 'pending')));
    for (const i of intents) expect(sink.for(i.id).filter((n) => n.status !== 'pending')).toHaveLength(1);
  });

  it('loses nothing across a restart of the intent service while intents wait, and two replicas never execute one intent twice', async () => {
    const token = await dex.deployToken('PlainToken', [SUPPLY]);
    const buyers = wallets.slice(0, 4);
    const intents: IntentRecord[] = [];
    for (const w of buyers)
      for (let i = 0; i < 3; i++) intents.push(await create({ wallet: w.address, tokenAddress: token, bribe: String(1000 - intents.length) }));
    const before = await Promise.all(buyers.map(async (w) => BigInt(await rpc('eth_getTransactionCount', [w.address, 'latest']))));
    // The only replica stops; the launch happens while none runs; two start.
    await stack.intentReplicas.shift()!.close();
    await dex.launch(token, SUPPLY / 10n, 5n * ETH);
    await Promise.all([stack.addIntentReplica(), stack.addIntentReplica()]);
    await eventually('every intent decided', () => decided(intents.map((i) => i.id)), 30_000);
    await rpc('evm_mine');
    await eventually('outcomes', () => terminal(intents.map((i) => i.id)), 30_000);
    for (const i of intents) {
      expect(await get(i.id)).toMatchObject({ status: 'completed' });
      expect(signer.requestsFor(i.id)).toHaveLength(1);
    }
    const after = await Promise.all(buyers.map(async (w) => BigInt(await rpc('eth_getTransactionCount', [w.address, 'latest']))));
    buyers.forEach((_, k) => expect(after[k]! - before[k]!).toBe(3n));
    const hashes = new Set((await Promise.all(intents.map((i) => get(i.id)))).map((r) => r.txHash));
    expect(hashes.size).toBe(intents.length);
    await stack.intentReplicas.pop()!.close();
  });

  it('waits out a simulation service outage with the reason on the pending intent, then executes', async () => {
    const token = await dex.deployToken('PlainToken', [SUPPLY]);
    const intent = await create({ wallet: wallets[13]!.address, tokenAddress: token });
    await stack.stopSimulation();
    try {
      await dex.launch(token, SUPPLY / 10n, ETH);
      await eventually('reason on the pending intent', async () => (await get(intent.id)).statusReason === 'execution_unavailable', 30_000);
      expect((await get(intent.id)).status).toBe('pending');
    } finally {
      await stack.startSimulation();
    }
    await eventually('decided', () => decided([intent.id]), 30_000);
    await rpc('evm_mine');
    await eventually('completed', async () => (await get(intent.id)).status === 'completed', 30_000);
    expect((await get(intent.id)).statusReason).toBeNull();
  });

  it('notifies every change in Merkle’s shape, with the measured values stored on the intent; the event stream sends the same bodies', async () => {
    // The tenant's event stream, open before anything happens.
    const controller = new AbortController();
    const res = await fetch(`${stack.baseUrl}/v1/intents/events`, { headers: { 'x-api-key': key }, signal: controller.signal });
    expect(res.status).toBe(200);
    let text = '';
    const reader = res.body!.getReader();
    const reading = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        text += Buffer.from(value).toString();
      }
    })().catch(() => undefined);
    await eventually('stream open', () => text.includes(': connected'));

    const plain = await dex.deployToken('PlainToken', [SUPPLY]);
    const taxed = await dex.deployToken('TaxToken', [SUPPLY, wallets[13]!.address, 1000]); // 10 % on every transfer
    const never = await dex.deployToken('PlainToken', [SUPPLY]); // never launched
    const buyAmount = ETH / 100n;
    const minOut = (SUPPLY / 10n).toString();
    // The highest bribe is checked first, on the pool exactly as the launch left it.
    const greedy = await create({ wallet: wallets[1]!.address, tokenAddress: plain, bribe: '20', minOut });
    const bought = await create({ wallet: wallets[0]!.address, tokenAddress: plain, bribe: '10' });
    const overTaxed = await create({ wallet: wallets[2]!.address, tokenAddress: taxed, maxBuyTax: 0.05 });
    const cancelled = await create({ wallet: wallets[3]!.address, tokenAddress: never });
    expect((await stack.request('POST', `/v1/intent/${cancelled.id}/cancel`, { key })).status).toBe(200);
    const expiring = await create({ wallet: wallets[4]!.address, tokenAddress: never, expiry: expiry(2) });

    await launchAndSettle(plain, [greedy, bought]);
    await launchAndSettle(taxed, [overTaxed]);
    await eventually('expired', async () => (await get(expiring.id)).status === 'expired', 30_000);

    await notified(bought.id, ['intent_created', 'intent_tx_pending', 'intent_completed']);
    await notified(greedy.id, ['intent_created', 'intent_ignored']);
    await notified(overTaxed.id, ['intent_created', 'intent_ignored']);
    await notified(cancelled.id, ['intent_created', 'intent_cancelled']);
    await notified(expiring.id, ['intent_created', 'intent_expired']);

    const body = (id: string, type: string) => JSON.parse(sink.for(id).find((n) => n.type === type)!.raw);
    // Every body: Merkle's fields beside ours, the intent as of the change.
    for (const intent of [bought, greedy, overTaxed, cancelled, expiring]) {
      for (const n of sink.for(intent.id)) {
        const b = JSON.parse(n.raw);
        expect(Object.keys(b)).toEqual(['id', 'intentId', 'chainId', 'type', 'reason', 'data', 'event', 'occurredAt', 'tenantId', 'intent']);
        expect(b).toMatchObject({ intentId: intent.id, chainId: CHAIN_ID, intent: { id: intent.id } });
        expect(b.id).toBe(n.id);
        expect(new Date(b.occurredAt).toISOString()).toBe(b.occurredAt);
        expect(n.verified).toBe(true);
      }
      expect(body(intent.id, 'intent_created')).toMatchObject({
        type: 'intent_created',
        event: 'created',
        reason: 'created',
        data: {},
        intent: { status: 'pending', statusData: null },
      });
    }
    expect(body(cancelled.id, 'intent_cancelled')).toMatchObject({ event: 'cancelled', reason: 'cancelled', data: {}, intent: { status: 'cancelled' } });
    expect(body(expiring.id, 'intent_expired')).toMatchObject({ event: 'expired', reason: 'expired', data: {}, intent: { status: 'expired' } });

    // Bought: the buy's hash once sent, then the outcome.
    const boughtRecord = await get(bought.id);
    expect(boughtRecord).toMatchObject({ status: 'completed', statusData: { txHash: boughtRecord.txHash } });
    expect(body(bought.id, 'intent_tx_pending')).toMatchObject({
      event: 'tx_pending',
      reason: 'launch_detected',
      data: { txHash: boughtRecord.txHash },
      intent: { status: 'pending' },
    });
    expect(body(bought.id, 'intent_completed')).toMatchObject({
      event: 'completed',
      reason: 'completed',
      data: { txHash: boughtRecord.txHash },
      intent: { status: 'completed' },
    });

    // minOut: the quote, exactly (Uniswap V2's formula on the launch reserves, no tax).
    const withFee = buyAmount * 997n;
    const quoted = (withFee * (SUPPLY / 10n)) / (ETH * 1000n + withFee);
    const greedyData = { minOut, quoted: quoted.toString() };
    expect(body(greedy.id, 'intent_ignored')).toMatchObject({
      event: 'failed',
      reason: 'min_out_not_met',
      data: greedyData,
      intent: { status: 'failed', statusData: greedyData },
    });
    expect((await get(greedy.id)).statusData).toEqual(greedyData);

    // Buy tax: the limit and the measured tax.
    const taxBody = body(overTaxed.id, 'intent_ignored');
    expect(taxBody).toMatchObject({ event: 'failed', reason: 'buy_tax_too_high', data: { max: 0.05 } });
    expect(taxBody.data.actual).toBeCloseTo(0.1, 12);
    expect((await get(overTaxed.id)).statusData).toEqual(taxBody.data);
    expect((await get(cancelled.id)).statusData).toBeNull();
    expect((await get(expiring.id)).statusData).toBeNull();

    // The event stream: the same bodies, byte for byte, with `event:` the type.
    const all = [bought, greedy, overTaxed, cancelled, expiring].flatMap((i) => sink.for(i.id));
    await eventually('every event streamed', () => all.every((n) => text.includes(`id: ${n.id}\n`)), 30_000);
    controller.abort();
    await reading;
    const streamed = new Map(
      text
        .split('\n\n')
        .filter((block) => block.startsWith('id: '))
        .map((block) => {
          const lines = block.split('\n');
          const field = (name: string) => lines.find((l) => l.startsWith(`${name}: `))!.slice(name.length + 2);
          return [field('id'), { event: field('event'), data: field('data') }] as const;
        }),
    );
    for (const n of all) expect(streamed.get(n.id)).toEqual({ event: n.type, data: n.raw });
  });

  it('fails nonce_used when another transaction of the wallet takes the buy’s nonce', async () => {
    const token = await dex.deployToken('PlainToken', [SUPPLY]);
    const w = wallets[12]!;
    const intent = await create({ wallet: w.address, tokenAddress: token });
    await dex.launch(token, SUPPLY / 10n, ETH);
    await eventually('submitted', () => decided([intent.id]), 30_000);
    const [{ tx_hash: hash, tx_nonce: nonce }] = await stack.db.query<{ tx_hash: string; tx_nonce: string }>(
      'SELECT tx_hash, tx_nonce::text FROM intent.intents WHERE id = $1',
      [intent.id],
    );
    // The wallet spends the nonce elsewhere before the buy is mined.
    expect(await rpc('hardhat_dropTransaction', [hash])).toBe(true);
    await rpc('eth_sendTransaction', [{ from: w.address, to: w.address, value: '0x1', nonce: `0x${BigInt(nonce).toString(16)}` }]);
    await rpc('evm_mine');
    await eventually('nonce_used', async () => (await get(intent.id)).status === 'failed', 30_000);
    expect(await get(intent.id)).toMatchObject({ statusReason: 'nonce_used', txHash: hash, statusData: { txHash: hash } });
    await notified(intent.id, ['intent_created', 'intent_tx_pending', 'intent_failed']);
    expect(sink.for(intent.id)[2]).toMatchObject({ reason: 'nonce_used', data: { txHash: hash } });
    expect(await rpc('eth_getTransactionReceipt', [hash])).toBeNull();
  });

  // Last: the tenant's secret changes for every later test.
  it('signs signing requests and notifications with the new secret once the tenant rotates it', async () => {
    const old = secret;
    const rotated = await stack.request<{ secret: string }>('POST', '/v1/intents/notifications/secret/rotate', { key });
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    expect(rotated.body.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(rotated.body.secret).not.toBe(old);
    // The signing webhook and the notification sink verify with the new secret only from now on.
    secret = rotated.body.secret;
    const token = await dex.deployToken('PlainToken', [SUPPLY]);
    const intent = await create({ wallet: wallets[0]!.address, tokenAddress: token });
    const done = await launchAndSettle(token, [intent]);
    expect(done.get(intent.id)).toMatchObject({ status: 'completed', statusReason: null });
    expect(signer.requestsFor(intent.id).map((r) => r.verified)).toEqual([true]);
    await notified(intent.id, ['intent_created', 'intent_tx_pending', 'intent_completed']);
    expect(sink.for(intent.id).every((n) => n.verified)).toBe(true);
  });
});
