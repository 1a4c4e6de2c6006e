import { createServer, type Server } from 'node:http';
import { executorDeployData } from '@tradeinfra/executor';
import { devWallet, eventually, HardhatNode, LocalDex, mined } from '@tradeinfra/test-support';
import { parseEther, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { Stack } from './harness.js';

/**
 * A sniping bot written from Merkle's pages alone (docs.merkle.io, Snipe), pointed at us by its
 * base URL: `Authorization: Token <key>`, Merkle's request fields only, a signer built from the
 * "Signature webhook" page (sign `hash`, answer `{signature}`), a notification endpoint reading
 * Merkle's `{intentId, chainId, type, reason, data}`, and a wallet intent signed with viem exactly
 * as the `POST /v1/wallet/intent` page shows. Nothing of ours (SDK, test signer, field names)
 * is used on the client's side; the chain is a local hardhat node that does not automine.
 */
const CHAIN_ID = 31337;
const SUPPLY = 10n ** 27n;

/** What Merkle's signature webhook page says we get. */
interface SignatureRequest {
  intentId: string;
  launch: { type: 'public_transaction' | 'private_transaction' | 'block'; blockNumber: string; launchTxHash: string };
  tx: { to: string | null; data: string; value: string; chainId: string; gas: string; nonce: string; maxFeePerGas: string; maxPriorityFeePerGas: string };
  rawTx?: string;
  hash: Hex;
}

/** A tiny JSON endpoint on 127.0.0.1: `answer` decides the reply to each body. */
async function endpoint(answer: (body: any) => unknown): Promise<{ url: string; bodies: any[]; close: () => Promise<void> }> {
  const bodies: any[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      bodies.push(body);
      void Promise.resolve(answer(body)).then((reply) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(reply ?? {}));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/`,
    bodies,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('a Merkle snipe client, written from Merkle’s pages, against us', () => {
  let node: HardhatNode;
  let dex: LocalDex;
  let stack: Stack;
  let key: string;
  let executor: string;
  let signer: Awaited<ReturnType<typeof endpoint>>;
  let notifications: Awaited<ReturnType<typeof endpoint>>;
  /** The bot's own book: which wallet key signs for which intent. */
  const keyOfIntent = new Map<string, Hex>();
  const wallets = [devWallet(1), devWallet(2), devWallet(3), devWallet(4)];
  const relayer = devWallet(19);

  const rpc = <T = any>(method: string, params: unknown[] = []) => node.rpc.call<T>(method, params);
  const merkle = (method: string, path: string, body?: unknown) => stack.request(method, path, { headers: { authorization: `Token ${key}` }, body });
  const expiry = () => Math.floor(Date.now() / 1000) + 3600;
  const terminal = async (ids: string[]) =>
    (await Promise.all(ids.map(async (id) => (await merkle('GET', `/v1/intent/${id}`)).body.status))).every((s) => s !== 'pending');

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
      SIGNER_TIMEOUT_MS: '3000',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
    });
    key = await stack.createKey();
    // The signer of the "Signature webhook" page: sign the hash with the intent's wallet, answer {signature}.
    signer = await endpoint((req: SignatureRequest) => {
      const pk = keyOfIntent.get(req.intentId);
      if (!pk) return { error: 'unknown intent' };
      return privateKeyToAccount(pk)
        .sign({ hash: req.hash })
        .then((signature) => ({ signature }));
    });
    notifications = await endpoint(() => ({}));
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
    await signer?.close();
    await notifications?.close();
    await node?.stop();
  });

  it('snipes with custodial bot intents through the signature webhook, and is told of a buy tax above its maximum as Merkle names it', async () => {
    // A token taking 10 % on transfers from the pair (its buys): the bot accepts 20 % on two intents, 1 % on the third.
    const token = await dex.deployToken('TaxToken', [SUPPLY, dex.owner, 1000n]);
    const body = (wallet: (typeof wallets)[number], maxBuyTax: number, bribe: string) => ({
      chainId: CHAIN_ID,
      wallet: wallet.address,
      tokenAddress: token,
      bribe,
      buyAmount: parseEther('0.01').toString(),
      expiry: expiry(),
      webhookUrl: signer.url,
      notificationWebhookUrl: notifications.url,
      maxBuyTax,
      gasTip: '1000000000',
    });
    const created = await merkle('POST', '/v1/intents', [body(wallets[0]!, 0.2, '3000'), body(wallets[1]!, 0.2, '2000'), body(wallets[2]!, 0.01, '1000')]);
    expect(created.status).toBe(201);
    const [a, b, taxed] = created.body as { id: string; createdAtMs: number; status: string; error: unknown }[];
    created.body.forEach((intent: { id: string }, i: number) => keyOfIntent.set(intent.id, wallets[i]!.privateKey as Hex));
    expect(a).toMatchObject({ status: 'pending', error: null, createdAtMs: expect.any(Number) });
    expect(Math.abs(a!.createdAtMs - Date.now())).toBeLessThan(60_000);
    const before = await Promise.all(wallets.slice(0, 2).map((w) => dex.balanceOf(token, w.address)));

    const launchBlock = await dex.launch(token, SUPPLY / 10n, parseEther('1'));
    const launchTx = (
      await rpc<{ transactions: { hash: string; to: string }[] }>('eth_getBlockByNumber', [`0x${launchBlock.toString(16)}`, true])
    ).transactions.find((tx) => tx.to?.toLowerCase() === dex.router)!.hash;
    await eventually('both buys asked for', () => signer.bodies.length >= 2, 30_000);
    await eventually(
      'the buys in the node’s pool',
      async () => (await rpc<{ transactions: unknown[] }>('eth_getBlockByNumber', ['pending', false])).transactions.length >= 2,
      30_000,
    );
    await rpc('evm_mine', []);
    await eventually('every intent settled', () => terminal([a!.id, b!.id, taxed!.id]), 30_000);

    // The requests were Merkle's: hex quantities, the hash of the EIP-1559 transaction, a launch seen in its block.
    for (const req of signer.bodies as SignatureRequest[]) {
      expect(Object.keys(req).sort()).toEqual(['hash', 'intentId', 'launch', 'tx']); // no rawTx: the launch was a block
      expect(req.launch).toEqual({ type: 'block', blockNumber: launchBlock.toString(), launchTxHash: launchTx });
      for (const field of ['value', 'chainId', 'gas', 'nonce', 'maxFeePerGas', 'maxPriorityFeePerGas'] as const) expect(req.tx[field]).toMatch(/^0x[0-9a-f]+$/);
      expect(BigInt(req.tx.chainId)).toBe(BigInt(CHAIN_ID));
      expect(BigInt(req.tx.maxPriorityFeePerGas)).toBe(1_000_000_000n);
    }
    expect(signer.bodies.map((r: SignatureRequest) => r.intentId).sort()).toEqual([a!.id, b!.id].sort());

    // The buys landed, sent from the wallets, and the records carry Merkle's fields.
    for (const [i, intent] of [a!, b!].entries()) {
      // The deployer is read from the chain soon after the intent is created, off the request's path.
      await eventually('the token’s deployer known', async () => (await merkle('GET', `/v1/intent/${intent.id}`)).body.token.deployer !== null, 30_000);
      const record = (await merkle('GET', `/v1/intent/${intent.id}`)).body;
      expect(record).toMatchObject({ status: 'completed', error: null, minBuy: null, gasTip: '1000000000' });
      expect(record.launch).toMatchObject({ type: 'block', launchTxHash: launchTx, blockNumber: Number(launchBlock) });
      expect(record.token).toMatchObject({
        chainId: CHAIN_ID,
        deployer: expect.stringMatching(/^0x/i),
        deployerHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      });
      expect(record.token.deployer.toLowerCase()).toBe(dex.owner);
      const deployTx = await rpc<{ from: string; blockNumber: string }>('eth_getTransactionByHash', [record.token.deployerHash]);
      expect(deployTx.from.toLowerCase()).toBe(dex.owner);
      expect(record.token.deployerBlocknumber).toBe(Number(deployTx.blockNumber));
      expect(record.token.deployerTimestamp).toEqual(expect.any(Number));
      const buy = await rpc<{ from: string }>('eth_getTransactionByHash', [record.txHash]);
      expect(buy.from.toLowerCase()).toBe(wallets[i]!.address.toLowerCase());
      expect(await dex.balanceOf(token, wallets[i]!.address)).toBeGreaterThan(before[i]!);
    }

    // Too high a buy tax: ignored, never signed, notified as Merkle's page shows it.
    await eventually('the ignored intent notified', () => notifications.bodies.some((n) => n.intentId === taxed!.id && n.type === 'intent_ignored'), 30_000);
    const ignored = notifications.bodies.find((n) => n.intentId === taxed!.id && n.type === 'intent_ignored');
    expect(ignored).toMatchObject({ intentId: taxed!.id, chainId: CHAIN_ID, type: 'intent_ignored', reason: 'buy_tax_too_high', data: { max: 0.01 } });
    expect(ignored.data.actual).toBeGreaterThan(0.09);
    expect((await merkle('GET', `/v1/intent/${taxed!.id}`)).body).toMatchObject({ status: 'failed', statusReason: 'buy_tax_too_high' });
    await eventually('the completed buys notified', () => notifications.bodies.filter((n) => n.type === 'intent_completed').length >= 2, 30_000);
  });

  it('executes a wallet intent signed as the POST /v1/wallet/intent page shows, at launch, without any webhook; its replay fails', async () => {
    const token = await dex.deployToken('PlainToken', [SUPPLY]);
    const wallet = wallets[3]!;
    const account = privateKeyToAccount(wallet.privateKey as Hex);
    // The wallet holds WETH and lets the router address of the page (our executor) take it.
    const weth = dex.a.WETH9!.iface;
    await mined(node, wallet.address, dex.weth, weth.encodeFunctionData('deposit', []), parseEther('1'));
    await mined(node, wallet.address, dex.weth, weth.encodeFunctionData('approve', [executor, parseEther('1')]));

    // The page's types and domain, verbatim; the message as the page's example builds it.
    const types = {
      BuyIntent: [
        { name: 'token', type: 'address' },
        { name: 'amount', type: 'uint256' },
        { name: 'bribe', type: 'uint256' },
        { name: 'expiry', type: 'uint256' },
        { name: 'minIn', type: 'uint256' },
      ],
    } as const;
    const domain = { name: 'OPL', version: '1', chainId: CHAIN_ID, verifyingContract: executor as Hex };
    const when = expiry();
    const signature = await account.signTypedData({
      types,
      domain,
      primaryType: 'BuyIntent',
      message: { token: token as Hex, amount: parseEther('0.01'), bribe: 7000n, expiry: BigInt(when), minIn: 0n },
    });
    const body = {
      chainId: CHAIN_ID,
      wallet: wallet.address,
      tokenAddress: token,
      bribe: '7000',
      signature,
      buyAmount: parseEther('0.01').toString(),
      expiry: when,
      notificationWebhookUrl: notifications.url,
      maxBuyTax: 0.2,
      gasTip: '1000000000',
    };
    const created = await merkle('POST', '/v1/wallet/intent', body);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ kind: 'wallet', nonce: null, webhookUrl: null, feeBps: null, minOut: null, firstOrFail: null });
    const asked = signer.bodies.length;
    const wethBefore = await dex.balanceOf(dex.weth, wallet.address);

    await dex.launch(token, SUPPLY / 10n, parseEther('1'));
    await eventually(
      'the executor call in the node’s pool',
      async () => (await rpc<{ transactions: unknown[] }>('eth_getBlockByNumber', ['pending', false])).transactions.length >= 1,
      30_000,
    );
    await rpc('evm_mine', []);
    await eventually('the wallet intent settled', () => terminal([created.body.id]), 30_000);
    const done = (await merkle('GET', `/v1/intent/${created.body.id}`)).body;
    expect(done).toMatchObject({ status: 'completed', error: null });
    expect(signer.bodies.length).toBe(asked); // no webhook was asked
    expect(wethBefore - (await dex.balanceOf(dex.weth, wallet.address))).toBe(parseEther('0.01') + 7000n);
    const bought = await dex.balanceOf(token, wallet.address);
    expect(bought).toBeGreaterThan(0n);
    // The relayer sent it to the executor: the wallet paid no gas and sent nothing.
    expect((await rpc<{ from: string; to: string }>('eth_getTransactionByHash', [done.txHash])).to.toLowerCase()).toBe(executor.toLowerCase());

    // The same signed body again: accepted as a request, but the executor has spent that signature.
    const replay = await merkle('POST', '/v1/wallet/intent', body);
    expect(replay.status).toBe(201);
    await eventually('the replay settled', () => terminal([replay.body.id]), 30_000);
    expect((await merkle('GET', `/v1/intent/${replay.body.id}`)).body).toMatchObject({ status: 'failed', statusReason: 'nonce_used', error: 'unknown' });
    expect(await dex.balanceOf(token, wallet.address)).toBe(bought);
  });
});
