import type { IntentRecord } from '@tradeinfra/contracts';
import { encodeInvalidateNonces, executorDeployData, nonceBit, signBuyIntent, type BuyIntent } from '@tradeinfra/executor';
import { devWallet, eventually, HardhatNode, LocalDex, mined } from '@tradeinfra/test-support';
import { MaxUint256, ZeroAddress, type HDNodeWallet } from 'ethers';
import { LaunchDriver } from './execution-support.js';
import { Stack } from './harness.js';

/**
 * Wallet intents (`POST /v1/wallet/intent`) on a local chain: the wallet signs its BuyIntent
 * once (EIP-712, for the chain's IntentExecutor); at launch the service's relayer sends the
 * executor call and pays its gas; the wallet pays `buyAmount + bribe` in WETH it approved to the
 * executor and receives the tokens. The node does not automine: the test mines the block after
 * the launch once every intent is decided.
 */
const CHAIN_ID = 31337;
const ETH = 10n ** 18n;
const SUPPLY = 10n ** 27n;
const COINBASE = '0xc014ba5ec014ba5ec014ba5ec014ba5ec014ba5e';

describe('wallet intents: pre-signed, executed by the relayer through the executor contract', () => {
  let node: HardhatNode;
  let dex: LocalDex;
  let stack: Stack;
  let key: string;
  let executor: string;
  const relayer = devWallet(19);
  const wallets = Array.from({ length: 10 }, (_, i) => devWallet(i + 1));
  let nextNonce = 100n;

  const rpc = <T = any>(method: string, params: unknown[] = []) => node.rpc.call<T>(method, params);
  const expiry = (seconds = 3600) => Math.floor(Date.now() / 1000) + seconds;
  const balance = async (address: string) => BigInt(await rpc('eth_getBalance', [address, 'latest']));
  const txCount = async (address: string) => BigInt(await rpc('eth_getTransactionCount', [address, 'latest']));
  const weth = () => dex.a.WETH9!.iface;

  /** Wraps `wrap` wei of the wallet's ETH and lets the executor take `allow` of it. */
  async function fund(wallet: HDNodeWallet, wrap: bigint, allow: bigint = MaxUint256): Promise<void> {
    if (wrap > 0n) await mined(node, wallet.address, dex.weth, weth().encodeFunctionData('deposit', []), wrap);
    await mined(node, wallet.address, dex.weth, weth().encodeFunctionData('approve', [executor, allow]));
  }

  /** The request body of a wallet intent, signed by `signer` (the wallet itself unless a test says otherwise). */
  async function signedBody(wallet: HDNodeWallet, fields: Record<string, unknown>, signer: HDNodeWallet = wallet): Promise<Record<string, unknown>> {
    const body: Record<string, unknown> = {
      chainId: CHAIN_ID,
      wallet: wallet.address,
      bribe: '0',
      buyAmount: (ETH / 100n).toString(),
      expiry: expiry(),
      gasTip: '0',
      nonce: String(nextNonce++),
      ...fields,
    };
    const terms: BuyIntent = {
      wallet: wallet.address,
      token: body.tokenAddress as string,
      amount: BigInt(body.buyAmount as string),
      bribe: BigInt(body.bribe as string),
      expiry: BigInt(body.expiry as number),
      minIn: BigInt((body.minIn as string | undefined) ?? 0),
      minOut: BigInt((body.minOut as string | undefined) ?? 0),
      feeBps: (body.feeBps as number | undefined) ?? 0,
      feeRecipient: (body.feeRecipient as string | undefined) ?? ZeroAddress,
      firstOrFail: (body.firstOrFail as boolean | undefined) ?? false,
      nonce: BigInt(body.nonce as string),
    };
    body.signature = await signBuyIntent(signer, terms, { chainId: CHAIN_ID, executor });
    return body;
  }

  async function create(wallet: HDNodeWallet, fields: Record<string, unknown>): Promise<IntentRecord> {
    const res = await stack.request<IntentRecord>('POST', '/v1/wallet/intent', { key, body: await signedBody(wallet, fields) });
    expect(res.status).toBe(201);
    return res.body;
  }
  let driver: LaunchDriver;
  const get = (id: string) => driver.get(id);
  const decided = (ids: string[]) => driver.decided(ids);
  const terminal = (ids: string[]) => driver.terminal(ids);
  const launchAndSettle = (token: string, intents: IntentRecord[], native = ETH) => driver.launchAndSettle(token, intents, native);

  beforeAll(async () => {
    node = await HardhatNode.start({ chainId: CHAIN_ID });
    dex = await LocalDex.deploy(node);
    await rpc('evm_setAutomine', [false]);
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
      LAUNCH_POLL_INTERVAL_MS: '100',
      EXPIRY_SWEEP_INTERVAL_MS: '100',
    });
    key = await stack.createKey();
    driver = new LaunchDriver(stack, node, dex, () => key, SUPPLY / 10n);
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
    await node?.stop();
  });

  it('buys at launch: the relayer sends and pays the gas, the wallet pays buyAmount + bribe in WETH and gets the tokens, the fee to the wei', async () => {
    const token = await dex.deployToken('PlainToken', [SUPPLY]);
    const [a, b] = [wallets[0]!, wallets[1]!];
    const feeRecipient = wallets[9]!.address;
    await fund(a, ETH);
    await fund(b, ETH);
    const buyAmount = ETH / 100n;
    const high = await create(a, { tokenAddress: token, bribe: '5000000', feeBps: 100, feeRecipient, minOut: '1', gasTip: '3' });
    const low = await create(b, { tokenAddress: token, bribe: '1000', gasTip: '2' });
    expect(high).toMatchObject({ status: 'pending', kind: 'wallet', wallet: a.address, webhookUrl: null });
    expect(high.nonce).toMatch(/^\d+$/);
    const before = {
      wethA: await dex.balanceOf(dex.weth, a.address),
      ethA: await balance(a.address),
      fee: await balance(feeRecipient),
      relayer: await balance(relayer.address),
    };

    const done = await launchAndSettle(token, [high, low]);

    for (const intent of [high, low]) {
      const record = done.get(intent.id)!;
      expect(record).toMatchObject({ status: 'completed', statusReason: null, kind: 'wallet' });
      const receipt = await rpc('eth_getTransactionReceipt', [record.txHash]);
      expect(receipt.status).toBe('0x1');
      expect(receipt.from.toLowerCase()).toBe(relayer.address.toLowerCase());
      expect(receipt.to.toLowerCase()).toBe(executor.toLowerCase());
    }
    expect(await dex.balanceOf(token, a.address)).toBeGreaterThan(0n);
    expect(await dex.balanceOf(token, b.address)).toBeGreaterThan(0n);
    // The wallet paid exactly buyAmount + bribe in WETH and no gas; the fee is 1 % of buyAmount.
    expect(before.wethA - (await dex.balanceOf(dex.weth, a.address))).toBe(buyAmount + 5_000_000n);
    expect(await balance(a.address)).toBe(before.ethA);
    expect((await balance(feeRecipient)) - before.fee).toBe(buyAmount / 100n);
    // The relayer paid the gas (at the intents' tips: the base fee is 0 here), to the wei; the
    // builder got both bribes and the tips.
    const receipts = await Promise.all([high, low].map((i) => rpc('eth_getTransactionReceipt', [done.get(i.id)!.txHash])));
    const gasPaid = receipts.reduce((sum, r) => sum + BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice), 0n);
    expect(gasPaid).toBeGreaterThan(0n);
    expect(before.relayer - (await balance(relayer.address))).toBe(gasPaid);
    const blockNumber = BigInt(receipts[0].blockNumber);
    const coinbase = async (n: bigint) => BigInt(await rpc('eth_getBalance', [COINBASE, `0x${n.toString(16)}`]));
    expect((await coinbase(blockNumber)) - (await coinbase(blockNumber - 1n))).toBe(5_000_000n + 1000n + gasPaid);
  });

  it('refuses at creation a signature that is not the wallet’s, or that signed other terms', async () => {
    const token = await dex.deployToken('PlainToken', [SUPPLY]);
    const [a, other] = [wallets[0]!, wallets[8]!];
    const wrongKey = await signedBody(a, { tokenAddress: token }, other);
    let res = await stack.request('POST', '/v1/wallet/intent', { key, body: wrongKey });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: true, name: 'ValidationError' });
    expect(res.body.details).toEqual([expect.objectContaining({ path: 'signature' })]);
    const changed = { ...(await signedBody(a, { tokenAddress: token })), buyAmount: (ETH / 10n).toString() };
    res = await stack.request('POST', '/v1/wallet/intent', { key, body: changed });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/signature/);
    const malformed = { ...(await signedBody(a, { tokenAddress: token })), signature: '0x1234' };
    res = await stack.request('POST', '/v1/wallet/intent', { key, body: malformed });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([expect.objectContaining({ path: 'signature' })]);
    const noNonce = await signedBody(a, { tokenAddress: token });
    delete noNonce.nonce;
    res = await stack.request('POST', '/v1/wallet/intent', { key, body: noNonce });
    expect(res.status).toBe(400);
    // Nothing was stored.
    const stored = await stack.db.query('SELECT 1 FROM intent.intents WHERE lower(token_address) = lower($1)', [token]);
    expect(stored).toHaveLength(0);
  });

  it('fails before sending anything: a used or revoked nonce, too little WETH, too small an allowance, firstOrFail after a mined launch', async () => {
    const token = await dex.deployToken('PlainToken', [SUPPLY]);
    const [poor, stingy, revoker, replayer, eager] = wallets.slice(2, 7) as HDNodeWallet[];
    await fund(poor, ETH / 1000n);
    await fund(stingy, ETH, ETH / 1000n);
    await fund(revoker, ETH);
    await fund(replayer, ETH);
    await fund(eager, ETH);
    const insufficient = await create(poor, { tokenAddress: token });
    const allowance = await create(stingy, { tokenAddress: token });
    const revoked = await create(revoker, { tokenAddress: token, nonce: '5' });
    // The wallet revokes nonce 5 on-chain.
    const { wordPos, mask } = nonceBit(5n);
    await mined(node, revoker.address, executor, encodeInvalidateNonces(wordPos, mask));
    // A nonce already spent by an executed intent: executed once on an earlier token, then signed again for this one.
    const earlier = await dex.deployToken('PlainToken', [SUPPLY]);
    const first = await create(replayer, { tokenAddress: earlier, nonce: '9' });
    expect((await launchAndSettle(earlier, [first])).get(first.id)).toMatchObject({ status: 'completed' });
    const replay = await create(replayer, { tokenAddress: token, nonce: '9' });
    const launchBlockOnly = await create(eager, { tokenAddress: token, firstOrFail: true });
    const relayerNonce = await txCount(relayer.address);
    const wethBefore = await Promise.all([poor, stingy, revoker, replayer, eager].map((w) => dex.balanceOf(dex.weth, w.address)));

    const done = await launchAndSettle(token, [insufficient, allowance, revoked, replay, launchBlockOnly]);

    expect(done.get(insufficient.id)).toMatchObject({ status: 'failed', statusReason: 'insufficient_funds', txHash: null });
    expect(done.get(allowance.id)).toMatchObject({ status: 'failed', statusReason: 'allowance_too_low', txHash: null });
    expect(done.get(revoked.id)).toMatchObject({ status: 'failed', statusReason: 'nonce_used', txHash: null });
    expect(done.get(replay.id)).toMatchObject({ status: 'failed', statusReason: 'nonce_used', txHash: null });
    expect(done.get(launchBlockOnly.id)).toMatchObject({ status: 'failed', statusReason: 'not_included', txHash: null });
    // The relayer sent nothing and no wallet paid anything.
    expect(await txCount(relayer.address)).toBe(relayerNonce);
    const wethAfter = await Promise.all([poor, stingy, revoker, replayer, eager].map((w) => dex.balanceOf(dex.weth, w.address)));
    expect(wethAfter).toEqual(wethBefore);
  });

  it('a front-run that moves the price past the signed minOut makes the executor revert: the wallet pays nothing', async () => {
    const token = await dex.deployToken('PlainToken', [SUPPLY]);
    const w = wallets[8]!;
    await fund(w, ETH);
    const buyAmount = ETH / 100n;
    // The pool gets SUPPLY / 10 tokens against 1 ETH: the buy would get this much on its own.
    const alone = (buyAmount * 997n * (SUPPLY / 10n)) / (ETH * 1000n + buyAmount * 997n);
    const intent = await create(w, { tokenAddress: token, buyAmount: buyAmount.toString(), minOut: ((alone * 95n) / 100n).toString() });
    const wethBefore = await dex.balanceOf(dex.weth, w.address);
    await dex.launch(token, SUPPLY / 10n, ETH);
    await eventually('the buy is sent', () => decided([intent.id]), 30_000);
    // Someone buys 0.5 ETH worth in the next block, before ours (the node's FIFO mempool would
    // mine ours first: it is taken out, and the executor sends it again when a block comes without it).
    const [{ tx_hash: sent }] = await stack.db.query<{ tx_hash: string }>('SELECT tx_hash FROM intent.intents WHERE id = $1', [intent.id]);
    expect(await rpc('hardhat_dropTransaction', [sent])).toBe(true);
    const router = dex.a.UniswapV2Router02!.iface;
    const frontRun = router.encodeFunctionData('swapExactETHForTokens', [0, [dex.weth, token], wallets[9]!.address, expiry()]);
    await mined(node, wallets[9]!.address, dex.router, frontRun, ETH / 2n);
    await eventually('the buy is sent again', async () => (await rpc('eth_getTransactionByHash', [sent])) !== null, 30_000);
    await rpc('evm_mine');
    await eventually('outcome', () => terminal([intent.id]), 30_000);
    const record = await get(intent.id);
    expect(record).toMatchObject({ status: 'failed', statusReason: 'reverted' });
    const receipt = await rpc('eth_getTransactionReceipt', [record.txHash]);
    expect(receipt.status).toBe('0x0');
    expect(await dex.balanceOf(token, w.address)).toBe(0n);
    expect(await dex.balanceOf(dex.weth, w.address)).toBe(wethBefore);
  });

  it('a cancel through the API stops the buy: nothing is sent at launch', async () => {
    const token = await dex.deployToken('PlainToken', [SUPPLY]);
    const w = wallets[7]!;
    await fund(w, ETH);
    const intent = await create(w, { tokenAddress: token, bribe: '1' });
    // Another intent on the same launch executes: the executor has run its round past the cancelled one.
    const witness = await create(w, { tokenAddress: token });
    const cancelled = await stack.request<IntentRecord>('POST', `/v1/intent/${intent.id}/cancel`, { key });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', kind: 'wallet' });
    const relayerNonce = await txCount(relayer.address);
    await dex.launch(token, SUPPLY / 10n, ETH);
    await eventually('the round after the launch decided', () => decided([witness.id]), 30_000);
    await rpc('evm_mine');
    await eventually('witness outcome', () => terminal([witness.id]), 30_000);
    expect((await get(witness.id)).status).toBe('completed');
    expect(await txCount(relayer.address)).toBe(relayerNonce + 1n);
    expect((await get(intent.id)).status).toBe('cancelled');
    // Only the witness bought: the wallet paid for one buy.
    expect((await get(intent.id)).txHash).toBeNull();
  });
});
