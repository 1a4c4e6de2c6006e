import { randomBytes } from 'node:crypto';
import { signBuyIntent } from '@tradeinfra/executor';
import { Wallet, ZeroAddress } from 'ethers';
import { Stack } from './harness.js';

/**
 * Every Snipe route driven exactly as Merkle's documentation shows it (docs.merkle.io, "Snipe" →
 * API reference): the method, the path, `Authorization: Token <key>`, and the documented body
 * with every field it names. Our additions are only where the docs leave a gap (a wallet intent's
 * `nonce`).
 */
describe('the Snipe API as Merkle documents it', () => {
  let stack: Stack;
  let key: string;
  const EXECUTOR = '0x000000000000000000000000000000000000e0e0';
  const expiry = () => Math.floor(Date.now() / 1000) + 3600;
  const address = () => Wallet.createRandom().address;
  /** Merkle's header: `Authorization: Token <key>`. */
  const call = (method: string, path: string, body?: unknown) => stack.request(method, path, { headers: { authorization: `Token ${key}` }, body });

  /** The body of docs.merkle.io's POST /v1/intent, every documented field set. */
  const documentedIntent = (wallet = address()) => ({
    chainId: 1,
    wallet,
    tokenAddress: address(),
    bribe: '1000000000000000',
    buyAmount: '100000000000000000',
    expiry: expiry(),
    webhookUrl: 'https://signer.example.com/sign',
    notificationWebhookUrl: 'https://hooks.example.com/intents',
    maxBuyTax: 0.2,
    maxSellTax: 0.2,
    minIn: '50000000000000000',
    minOut: '1000000',
    minLiquidity: '10000',
    feeBps: 100,
    feeRecipient: address(),
    firstOrFail: true,
    maxSlippageBps: 1000,
    gasTip: '1000000000',
  });

  beforeAll(async () => {
    stack = await Stack.start({
      // Chain 1 with an executor, for wallet intents (the node is never reached by these tests).
      RPC_URL_1: 'http://127.0.0.1:9',
      EXECUTOR_1: EXECUTOR,
      RELAYER_KEY_1: `0x${randomBytes(32).toString('hex')}`,
    });
    key = await stack.createKey();
  }, 120_000);
  afterAll(() => stack?.close());

  it('POST /v1/intent with the documented body', async () => {
    const body = documentedIntent();
    const res = await call('POST', '/v1/intent', body);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ ...body, status: 'pending', kind: 'bot' });
    expect((await call('GET', `/v1/intent/${res.body.id}`)).body).toMatchObject({ id: res.body.id, status: 'pending' });
  });

  it('POST /v1/intents with the documented array body', async () => {
    const bodies = [documentedIntent(), documentedIntent(), { ...documentedIntent(), firstOrFail: false }];
    const res = await call('POST', '/v1/intents', bodies);
    expect(res.status).toBe(201);
    expect(res.body).toHaveLength(3);
    res.body.forEach((record: Record<string, unknown>, i: number) => expect(record).toMatchObject({ ...bodies[i], status: 'pending' }));
  });

  it('POST /v1/wallet/intent with the documented body (plus the nonce our struct carries), signed with EIP-712 domain OPL/1', async () => {
    const signer = Wallet.createRandom();
    const body: Record<string, unknown> = { ...documentedIntent(signer.address), nonce: '1' };
    delete body.webhookUrl; // a wallet intent has no signing webhook
    body.signature = await signBuyIntent(
      signer,
      {
        wallet: signer.address,
        token: body.tokenAddress as string,
        amount: BigInt(body.buyAmount as string),
        bribe: BigInt(body.bribe as string),
        expiry: BigInt(body.expiry as number),
        minIn: BigInt(body.minIn as string),
        minOut: BigInt(body.minOut as string),
        feeBps: body.feeBps as number,
        feeRecipient: (body.feeRecipient as string) ?? ZeroAddress,
        firstOrFail: body.firstOrFail as boolean,
        nonce: 1n,
      },
      { chainId: 1, executor: EXECUTOR },
    );
    const res = await call('POST', '/v1/wallet/intent', body);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ wallet: signer.address, kind: 'wallet', nonce: '1', status: 'pending' });
  });

  it('POST /v1/intents/search with the documented body, then DEL /v1/intents with {ids}', async () => {
    const wallet = address();
    const created = await Promise.all([0, 1].map(async () => (await call('POST', '/v1/intent', documentedIntent(wallet))).body.id as string));
    const search = await call('POST', '/v1/intents/search', {
      addresses: [wallet, address()],
      status: ['pending', 'completed', 'expired', 'cancelled', 'error'],
    });
    expect(search.status).toBe(200);
    expect(search.body.map((i: { id: string }) => i.id).sort()).toEqual([...created].sort());
    const cancel = await call('DELETE', '/v1/intents', { ids: created });
    expect(cancel.status).toBe(200);
    expect(cancel.body.map((r: { cancelled: boolean }) => r.cancelled)).toEqual([true, true]);
    const after = await call('POST', '/v1/intents/search', { addresses: [wallet] }); // status defaults to ["pending"]
    expect(after.body).toEqual([]);
  });
});
