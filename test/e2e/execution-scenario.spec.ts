/**
 * Intent execution, end to end, written from the documentation only (then the README's
 * "Execution", "Signing", "Submission", "Exactly one outcome", "Notifications"; now
 * docs/api/intents.md, signing-webhook.md, notifications.md, docs/design/submission.md and
 * exactly-once.md) and the typed contract.
 *
 * A real hardhat chain (automine off: the test decides when blocks happen), a Uniswap V2 DEX
 * on it, the whole product (gateway, intent, simulation and payout services), and a signing
 * webhook (test-support's SigningWebhook) that checks the service's HMAC and signs with ethers, or
 * misbehaves on purpose (one route per behaviour). Every wallet is a fresh random one funded with hardhat_setBalance, so the base fee
 * (0 on this node) and a gas tip of 0 make every wei a wallet spends accountable. The services
 * reach the node through test-support's JSON-RPC proxy (see `nodeProxy`).
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IntentRecord } from '@tradeinfra/contracts';
import { eventually, HardhatNode, JsonRpcProxy, LocalDex, mined, SigningWebhook, type SignerBehaviour } from '@tradeinfra/test-support';
import { getAddress, MaxUint256, Wallet, type HDNodeWallet } from 'ethers';
import { Stack } from './harness.js';

const CHAIN_ID = 31337;
const ETHER = 10n ** 18n;
const MILLI = 10n ** 15n;
const DEFAULT_TIP = 7n; // EXECUTION_DEFAULT_GAS_TIP_WEI for this stack
const SIGNER_TIMEOUT_MS = 2000;
const TERMINAL = ['completed', 'failed', 'expired', 'cancelled', 'error'];

type SignMode = 'ok' | 'wrong-key' | 'tamper' | 'slow' | 'refuse';

/** How the signing webhook answers on each route: `<signer.url>/<mode>`. */
const SIGN_ROUTES: Record<SignMode, SignerBehaviour> = {
  ok: 'sign',
  'wrong-key': 'wrong-key',
  tamper: 'tamper',
  slow: { pastDeadlineMs: 750 },
  refuse: 'refuse',
};

interface Notification {
  headers: IncomingHttpHeaders;
  raw: string;
  body: { id: string; type: string; event: string; intent: IntentRecord };
}

interface RpcBlock {
  number: string;
  timestamp: string;
  miner: string;
  transactions: string[];
}

interface RpcReceipt {
  status: string;
  from: string;
  to: string | null;
  blockNumber: string;
  contractAddress: string | null;
  gasUsed: string;
  effectiveGasPrice: string;
  transactionHash: string;
}

/** Uniswap V2's getAmountOut (0.3% LP fee). */
function amountOut(amountIn: bigint, reserveIn: bigint, reserveOut: bigint): bigint {
  const withFee = amountIn * 997n;
  return (withFee * reserveOut) / (reserveIn * 1000n + withFee);
}

const hex = (n: bigint) => `0x${n.toString(16)}`;
const lower = (s: string | null | undefined) => (s ?? '').toLowerCase();

describe('intent execution: a scenario from the documentation', () => {
  let node: HardhatNode;
  let dex: LocalDex;
  let stack: Stack;
  let key: string;
  let secret: string;
  let signer: SigningWebhook;
  let hooks: Server;
  let notify: string;
  let deadUrl: string;
  /**
   * The chain's node as the services reach it: hardhat behind a pass-through that handles a JSON-RPC
   * batch holding transactions item by item, last first, as JSON-RPC 2.0 allows ("The Server MAY
   * process a batch rpc call as a set of concurrent tasks, processing them in any order"); hardhat
   * itself handles a batch's items concurrently, so their order is a coin toss there.
   */
  let nodeProxy: JsonRpcProxy;

  const notifications: Notification[] = [];
  const devSigned = Wallet.createRandom();
  const taxTo = Wallet.createRandom().address;
  const feeRecipient = Wallet.createRandom().address;

  let stable: string;
  let stablePair: string;
  let plain: string; // the main launch
  let taxed: string;
  let honey: string;
  let broken: string;

  const rpc = <T = any>(method: string, params: unknown[] = []) => node.rpc.call<T>(method, params);
  const head = async () => BigInt(await rpc<string>('eth_blockNumber'));
  const balance = async (who: string, block: bigint | 'latest' = 'latest') =>
    BigInt(await rpc<string>('eth_getBalance', [who, typeof block === 'bigint' ? hex(block) : block]));
  const nonce = async (who: string) => Number(BigInt(await rpc<string>('eth_getTransactionCount', [who, 'latest'])));
  const block = (n: bigint) => rpc<RpcBlock>('eth_getBlockByNumber', [hex(n), false]);
  const receipt = (hash: string) => rpc<RpcReceipt>('eth_getTransactionReceipt', [hash]);
  const callsFor = (intentId: string) => signer.requestsFor(intentId);

  async function newWallet(fundWei: bigint = 10n * ETHER, wallet: HDNodeWallet = Wallet.createRandom()): Promise<HDNodeWallet> {
    signer.addWallet(wallet);
    await rpc('hardhat_setBalance', [wallet.address, hex(fundWei)]);
    return wallet;
  }

  interface Made {
    id: string;
    wallet: HDNodeWallet;
    body: Record<string, unknown>;
    record: IntentRecord;
    initialBalance: bigint;
  }

  /** Creates an intent through the gateway (signing webhook in `mode` unless `webhookUrl` is given). */
  async function createIntent(
    token: string,
    fields: Record<string, unknown> & { mode?: SignMode | null; wallet?: HDNodeWallet; fund?: bigint },
  ): Promise<Made> {
    const { mode = 'ok', wallet: given, fund, ...rest } = fields;
    const wallet = given ?? (await newWallet(fund));
    if (given) signer.addWallet(given);
    const body: Record<string, unknown> = {
      chainId: CHAIN_ID,
      wallet: wallet.address,
      tokenAddress: getAddress(token),
      expiry: Math.floor(Date.now() / 1000) + 3600,
      ...(mode ? { webhookUrl: signer.urlFor(mode), webhookProtocol: 'tradeinfra' } : {}),
      ...rest,
    };
    const res = await stack.request<IntentRecord>('POST', '/v1/intent', { key, body });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('pending');
    return { id: res.body.id, wallet, body, record: res.body, initialBalance: await balance(wallet.address) };
  }

  const get = async (id: string) => {
    const res = await stack.request<IntentRecord>('GET', `/v1/intent/${id}`, { key });
    expect(res.status).toBe(200);
    return res.body;
  };

  /**
   * Waits until the service is done with the round: every intent terminal, or its buy submitted
   * and already in the node's mempool (the row may be marked submitted a moment before the send).
   */
  async function settled(ids: string[], timeoutMs = 45_000): Promise<void> {
    await eventually(
      'every intent terminal, or submitted and at the node',
      async () => {
        const rows = await stack.db.query<{ status: string; phase: string | null; tx_hash: string | null }>(
          'SELECT status, phase, tx_hash FROM intent.intents WHERE id = ANY($1::uuid[])',
          [ids],
        );
        if (rows.length !== ids.length || !rows.every((r) => r.status !== 'pending' || (r.phase === 'submitted' && r.tx_hash))) return false;
        for (const r of rows) if (r.status === 'pending' && (await rpc('eth_getTransactionByHash', [r.tx_hash])) === null) return false;
        return true;
      },
      timeoutMs,
      100,
    );
  }

  /** Waits until every intent is terminal, through the API; returns the records by id. */
  async function finals(ids: string[], timeoutMs = 30_000): Promise<Map<string, IntentRecord>> {
    const out = new Map<string, IntentRecord>();
    await eventually(
      'every intent terminal',
      async () => {
        for (const id of ids) {
          if (out.has(id)) continue;
          const r = await get(id);
          if (TERMINAL.includes(r.status)) out.set(id, r);
        }
        return out.size === ids.length;
      },
      timeoutMs,
      100,
    );
    return out;
  }

  async function reservesAt(token: string, at: bigint): Promise<{ native: bigint; token: bigint }> {
    const pair = await dex.pairOf(token);
    const iface = dex.a.UniswapV2Pair!.iface;
    const [r0, r1] = iface.decodeFunctionResult(
      'getReserves',
      await rpc<string>('eth_call', [{ to: pair, data: iface.encodeFunctionData('getReserves') }, hex(at)]),
    ) as unknown as [bigint, bigint];
    const token0 = lower(
      iface.decodeFunctionResult('token0', await rpc<string>('eth_call', [{ to: pair, data: iface.encodeFunctionData('token0') }, hex(at)]))[0] as string,
    );
    return token0 === lower(dex.weth) ? { native: r0, token: r1 } : { native: r1, token: r0 };
  }

  // ---- the signing webhook, and the notification receiver ----

  beforeAll(async () => {
    signer = await new SigningWebhook(() => secret, []).start();
    for (const [route, behaviour] of Object.entries(SIGN_ROUTES)) signer.routes.set(route, behaviour);
    hooks = createServer((req, res) => {
      let raw = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (raw += c));
      req.on('end', () => {
        if (req.url === '/notify') notifications.push({ headers: req.headers, raw, body: JSON.parse(raw) });
        res.statusCode = req.url === '/notify' ? 204 : 404;
        res.end();
      });
    });
    await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r));
    notify = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/notify`;
    // A port nobody listens on: the unreachable signer.
    const dead = createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
    deadUrl = `http://127.0.0.1:${(dead.address() as AddressInfo).port}/sign`;
    await new Promise<void>((r) => dead.close(() => r()));

    node = await HardhatNode.start({ chainId: CHAIN_ID });
    dex = await LocalDex.deploy(node);
    // A stable coin at 2,000 units per native coin, to price liquidity.
    stable = await dex.deployToken('PlainToken', [10n ** 30n]);
    await dex.launch(stable, 2_000_000n * ETHER, 1_000n * ETHER);
    stablePair = await dex.pairOf(stable);
    plain = await dex.deployToken('PlainToken', [10n ** 27n]);
    taxed = await dex.deployToken('TaxToken', [10n ** 27n, taxTo, 500n]);
    honey = await dex.deployToken('HoneypotToken', [10n ** 27n]);
    broken = await dex.deployToken('RevertingToken', [10n ** 27n]);
    await rpc('evm_setAutomine', [false]);
    nodeProxy = await JsonRpcProxy.start({ upstream: node.url, sendBatchesLastFirst: true });

    stack = await Stack.start({
      CHAIN_IDS: String(CHAIN_ID),
      RPC_URL_31337: nodeProxy.url,
      HARDFORK_31337: 'prague',
      DEX_FACTORY_31337: dex.factory,
      DEX_ROUTER_31337: dex.router,
      WRAPPED_NATIVE_31337: dex.weth,
      STABLE_PAIR_31337: stablePair,
      DEV_SIGNER_KEYS_31337: devSigned.privateKey,
      EXECUTION_DEFAULT_GAS_TIP_WEI: DEFAULT_TIP.toString(),
      LAUNCH_POLL_INTERVAL_MS: '100',
      EXPIRY_SWEEP_INTERVAL_MS: '100',
      OUTBOX_POLL_INTERVAL_MS: '100',
      SIGNER_TIMEOUT_MS: String(SIGNER_TIMEOUT_MS),
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
    });
    key = await stack.createKey();
    const res = await stack.request<{ secret: string }>('GET', '/v1/intents/notifications/secret', { key });
    expect(res.status).toBe(200);
    secret = res.body.secret;
    expect(secret).toEqual(expect.any(String));
  }, 120_000);

  afterAll(async () => {
    await stack?.close();
    await node?.stop();
    await nodeProxy?.close();
    await signer?.close();
    for (const server of [hooks]) {
      if (!server) continue;
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  // -------------------------------------------------------------------------------------------
  describe('one launch, many wallets', () => {
    const LAUNCH_TOKENS = 1_000_000n * ETHER;
    const LAUNCH_NATIVE = 20n * ETHER;
    const I: Record<string, Made> = {};
    let launchBlock: bigint;
    let buyBlock: bigint;
    let results: Map<string, IntentRecord>;
    let cancelBeforeLaunch: { status: number; body: any };
    let cancelAgain: { status: number; body: any };
    let cancelSubmitted: { status: number; body: any };
    let whileSubmitted: IntentRecord;

    beforeAll(async () => {
      // Highest bribe first: the four good buys are checked, signed and sent before the others.
      I.alpha = await createIntent(plain, {
        bribe: (9n * MILLI).toString(),
        buyAmount: (500n * MILLI).toString(),
        feeBps: 100,
        feeRecipient,
        maxSlippageBps: 3000,
        minOut: '1',
        gasTip: '0',
        notificationWebhookUrl: notify,
      });
      I.bravo = await createIntent(plain, { bribe: (8n * MILLI).toString(), buyAmount: (300n * MILLI).toString(), feeBps: 250, feeRecipient, gasTip: '0' });
      I.devSigned = await createIntent(plain, {
        mode: null,
        wallet: await newWallet(10n * ETHER, devSigned),
        bribe: (7n * MILLI).toString(),
        buyAmount: (250n * MILLI).toString(),
        gasTip: '0',
      });
      I.charlie = await createIntent(plain, {
        bribe: (6n * MILLI).toString(),
        buyAmount: (200n * MILLI).toString(),
        minIn: (200n * MILLI).toString(),
        minLiquidity: '7000000',
        gasTip: '0',
      });
      // Signers that misbehave.
      I.wrongKey = await createIntent(plain, { mode: 'wrong-key', bribe: '5900000000000000', buyAmount: (100n * MILLI).toString(), gasTip: '0' });
      I.tampered = await createIntent(plain, { mode: 'tamper', bribe: '5800000000000000', buyAmount: (100n * MILLI).toString(), gasTip: '0' });
      I.slow = await createIntent(plain, { mode: 'slow', bribe: '5700000000000000', buyAmount: (100n * MILLI).toString(), gasTip: '0' });
      I.refused = await createIntent(plain, { mode: 'refuse', bribe: '5600000000000000', buyAmount: (100n * MILLI).toString(), gasTip: '0' });
      I.unreachable = await createIntent(plain, {
        mode: null,
        webhookUrl: deadUrl,
        bribe: '5500000000000000',
        buyAmount: (100n * MILLI).toString(),
        gasTip: '0',
      });
      // Limits that are not met.
      I.minOut = await createIntent(plain, {
        bribe: (5n * MILLI).toString(),
        buyAmount: (100n * MILLI).toString(),
        minOut: (1_000_000n * ETHER).toString(),
        notificationWebhookUrl: notify,
      });
      I.minIn = await createIntent(plain, {
        bribe: (4n * MILLI).toString(),
        buyAmount: (100n * MILLI).toString(),
        feeBps: 1000,
        feeRecipient,
        minIn: (90n * MILLI + 1n).toString(),
      });
      I.liquidity = await createIntent(plain, { bribe: (3n * MILLI).toString(), buyAmount: (100n * MILLI).toString(), minLiquidity: '20000000' });
      I.slippage = await createIntent(plain, { bribe: '2500000000000000', buyAmount: (3n * ETHER).toString(), maxSlippageBps: 100 });
      I.nothing = await createIntent(plain, { bribe: (2n * MILLI).toString(), buyAmount: (100n * MILLI).toString(), feeBps: 10_000, feeRecipient });
      I.poor = await createIntent(plain, { fund: 10n * MILLI, bribe: '1500000000000000', buyAmount: (500n * MILLI).toString() });
      I.unsigned = await createIntent(plain, { mode: null, bribe: (1n * MILLI).toString(), buyAmount: (100n * MILLI).toString() });
      // Cancelled while it waits for the launch.
      I.cancelled = await createIntent(plain, { bribe: (50n * MILLI).toString(), buyAmount: (100n * MILLI).toString() });
      cancelBeforeLaunch = await stack.request('POST', `/v1/intent/${I.cancelled.id}/cancel`, { key });
      cancelAgain = await stack.request('POST', `/v1/intent/${I.cancelled.id}/cancel`, { key });

      launchBlock = await dex.launch(plain, LAUNCH_TOKENS, LAUNCH_NATIVE);
      const executing = Object.entries(I)
        .filter(([n]) => n !== 'cancelled')
        .map(([, m]) => m.id);
      await settled(executing);
      whileSubmitted = await get(I.alpha.id);
      cancelSubmitted = await stack.request('POST', `/v1/intent/${I.alpha.id}/cancel`, { key });
      await rpc('evm_mine');
      buyBlock = await head();
      results = await finals(Object.values(I).map((m) => m.id));
    }, 90_000);

    const result = (name: string) => results.get(I[name]!.id)!;
    const GOOD = ['alpha', 'bravo', 'devSigned', 'charlie'];

    /** The tokens each good buy gets from the pool, when the buys run in `order`. */
    function poolOuts(order: string[]): Map<string, bigint> {
      let reserveNative = LAUNCH_NATIVE;
      let reserveToken = LAUNCH_TOKENS;
      const outs = new Map<string, bigint>();
      for (const name of order) {
        const m = I[name]!;
        const buyAmount = BigInt(m.body.buyAmount as string);
        const fee = (buyAmount * BigInt((m.body.feeBps as number | undefined) ?? 0)) / 10_000n;
        const out = amountOut(buyAmount - fee, reserveNative, reserveToken);
        reserveNative += buyAmount - fee;
        reserveToken -= out;
        outs.set(name, out);
      }
      return outs;
    }

    it('completes the buys that pass their checks in the target block, each paying exactly buyAmount + bribe, fee and bribe included', async () => {
      expect(buyBlock).toBe(launchBlock + 1n);
      const b = await block(buyBlock);
      for (const name of GOOD) {
        expect({ name, status: result(name).status, reason: result(name).statusReason }).toEqual({ name, status: 'completed', reason: null });
        expect(result(name).txHash).toMatch(/^0x[0-9a-f]{64}$/);
        expect(Date.parse(result(name).executedAt!)).toBe(Number(BigInt(b.timestamp)) * 1000);
      }
      // The block holds exactly the good buys (whatever their order: see the next test).
      expect(b.transactions.map(lower).sort()).toEqual(GOOD.map((n) => lower(result(n).txHash)).sort());

      // The tokens each wallet got: the pool's own arithmetic, in the order the block holds the buys.
      const byHash = new Map(GOOD.map((n) => [lower(result(n).txHash), n]));
      const outs = poolOuts(b.transactions.map((h) => byHash.get(lower(h))!));
      for (const name of GOOD) {
        const m = I[name]!;
        const r = await receipt(result(name).txHash!);
        expect(r.status).toBe('0x1');
        expect(lower(r.from)).toBe(lower(m.wallet.address));
        expect(r.to).toBeNull();
        expect(BigInt(r.blockNumber)).toBe(buyBlock);
        expect(BigInt(r.effectiveGasPrice)).toBe(0n);
        // A contract creation that deploys nothing.
        expect(await rpc('eth_getCode', [r.contractAddress, 'latest'])).toBe('0x');
        expect({ name, tokens: await dex.balanceOf(plain, m.wallet.address) }).toEqual({ name, tokens: outs.get(name) });
        const spent = BigInt(m.body.buyAmount as string) + BigInt(m.body.bribe as string);
        expect({ name, spent: m.initialBalance - (await balance(m.wallet.address)) }).toEqual({ name, spent });
        expect(await nonce(m.wallet.address)).toBe(1);
      }
      // The fee: buyAmount × feeBps / 10000 to feeRecipient (alpha's 1 %, bravo's 2.5 %).
      expect(await balance(feeRecipient)).toBe((500n * MILLI * 100n) / 10_000n + (300n * MILLI * 250n) / 10_000n);
      // The bribes, exactly, to the block's coinbase (base fee 0, gas tip 0).
      const bribes = GOOD.reduce((sum, n) => sum + BigInt(I[n]!.body.bribe as string), 0n);
      expect((await balance(b.miner, buyBlock)) - (await balance(b.miner, launchBlock))).toBe(bribes);
    });

    it('sends the buys out in the order they were checked (highest bribe first), so each gets the expectedOut it was quoted', async () => {
      const b = await block(buyBlock);

      const quoted = new Map<string, bigint>();
      for (const name of ['alpha', 'bravo', 'charlie']) quoted.set(name, BigInt(callsFor(I[name]!.id)[0]!.request.transactions[0]!.summary.expectedOut));
      // The service's quotes follow the bribe order, as the pool's arithmetic does.
      const inBribeOrder = poolOuts(GOOD);
      for (const name of ['alpha', 'bravo', 'charlie']) expect({ name, quoted: quoted.get(name) }).toEqual({ name, quoted: inBribeOrder.get(name) });
      // The chain holds them in that order, and each wallet got what it was quoted.
      expect(b.transactions.map(lower)).toEqual(GOOD.map((n) => lower(result(n).txHash)));
      for (const name of ['alpha', 'bravo', 'charlie']) {
        expect({ name, tokens: await dex.balanceOf(plain, I[name]!.wallet.address) }).toEqual({ name, tokens: quoted.get(name) });
      }
    });

    it('sends the signing webhook the documented unsigned buy, HMAC-signed with the tenant secret, and submits what it signed', async () => {
      const signCalls = signer.received;
      expect(signCalls.length).toBeGreaterThan(0);
      for (const call of signCalls) {
        expect(call.verified).toBe(true);
        expect(call.headers['x-signing-request-id']).toBe(call.request.id);
        expect(Math.abs(Number(call.headers['x-signing-timestamp']) - call.receivedAt / 1000)).toBeLessThan(60);
      }
      expect(new Set(signCalls.map((c) => c.request.id)).size).toBe(signCalls.length);

      for (const name of ['alpha', 'bravo', 'charlie']) {
        const m = I[name]!;
        const calls = callsFor(m.id);
        expect({ name, requests: calls.length }).toEqual({ name, requests: 1 });
        const [call] = calls;
        const req = call!.request;
        expect(req).toMatchObject({
          kind: 'sign',
          intentId: m.id,
          chainId: CHAIN_ID,
          wallet: m.wallet.address,
          launchBlock: launchBlock.toString(),
          targetBlock: (launchBlock + 1n).toString(),
        });
        expect(req.deadline).toBeGreaterThan(call!.receivedAt);
        expect(req.deadline).toBeLessThanOrEqual(call!.receivedAt + SIGNER_TIMEOUT_MS + 1000);
        expect(req.transactions).toHaveLength(1);
        const tx = req.transactions[0]!;
        const buyAmount = BigInt(m.body.buyAmount as string);
        const bribe = BigInt(m.body.bribe as string);
        const fee = (buyAmount * BigInt((m.body.feeBps as number | undefined) ?? 0)) / 10_000n;
        expect(tx).toMatchObject({
          purpose: 'buy',
          type: 2,
          chainId: CHAIN_ID,
          nonce: 0,
          to: null,
          value: (buyAmount + bribe).toString(),
          maxPriorityFeePerGas: '0',
          maxFeePerGas: '0',
          accessList: [],
        });
        expect(lower(tx.from)).toBe(lower(m.wallet.address));
        expect(tx.data).toMatch(/^0x[0-9a-f]+$/i);
        const r = await receipt(result(name).txHash!);
        expect(BigInt(tx.gasLimit)).toBeGreaterThan(BigInt(r.gasUsed));
        expect(BigInt(tx.gasLimit)).toBeGreaterThanOrEqual(30_000n);
        expect(lower(tx.summary.router)).toBe(lower(dex.router));
        expect(lower(tx.summary.token)).toBe(lower(plain));
        expect(tx.summary).toMatchObject({
          swapValue: (buyAmount - fee).toString(),
          fee: fee.toString(),
          bribe: bribe.toString(),
          deadline: String(m.body.expiry),
          onlyInBlock: null,
        });
        expect(lower(tx.summary.feeRecipient)).toBe(fee > 0n ? lower(feeRecipient) : '');
        // The intent's txHash is the transaction our webhook signed.
        expect(call!.answeredHashes).toEqual([result(name).txHash]);
      }
      // amountOutMin: minOut, raised to the quote × (1 − maxSlippageBps) (alpha: 30 %); 0 when neither is set.
      const alphaSummary = callsFor(I.alpha!.id)[0]!.request.transactions[0]!.summary;
      const floor = (BigInt(alphaSummary.expectedOut) * 7000n) / 10_000n;
      const amountOutMin = BigInt(alphaSummary.amountOutMin);
      expect(amountOutMin >= floor - 1n && amountOutMin <= floor + 1n).toBe(true);
      for (const name of ['bravo', 'charlie']) expect(callsFor(I[name]!.id)[0]!.request.transactions[0]!.summary.amountOutMin).toBe('0');
    });

    it('fails an intent whose signer misbehaves with the documented reason, and puts nothing of it on chain', async () => {
      const expected: Record<string, string> = {
        wrongKey: 'signature_invalid',
        tampered: 'signature_invalid',
        slow: 'signer_timeout',
        refused: 'signer_refused',
        unreachable: 'signer_unreachable',
      };
      for (const [name, reason] of Object.entries(expected)) {
        expect({ name, status: result(name).status, reason: result(name).statusReason }).toEqual({ name, status: 'failed', reason });
        const m = I[name]!;
        expect(await nonce(m.wallet.address)).toBe(0);
        expect(await balance(m.wallet.address)).toBe(m.initialBalance);
        expect(await dex.balanceOf(plain, m.wallet.address)).toBe(0n);
      }
      for (const name of ['wrongKey', 'tampered', 'slow', 'refused']) {
        expect({ name, asked: callsFor(I[name]!.id).length > 0 }).toEqual({ name, asked: true });
      }
      // What the misbehaving signers answered never reached the chain.
      for (const name of ['wrongKey', 'tampered', 'slow']) {
        for (const hash of callsFor(I[name]!.id).flatMap((c) => c.answeredHashes)) {
          expect(await rpc('eth_getTransactionByHash', [hash])).toBeNull();
        }
      }
    });

    it('fails intents whose limits are not met, without asking their signer', async () => {
      const expected: Record<string, string> = {
        minOut: 'min_out_not_met',
        minIn: 'min_in_not_met',
        liquidity: 'liquidity_too_low',
        slippage: 'slippage_too_high',
        nothing: 'nothing_to_buy',
        poor: 'insufficient_funds',
        unsigned: 'no_signer',
      };
      for (const [name, reason] of Object.entries(expected)) {
        expect({ name, status: result(name).status, reason: result(name).statusReason }).toEqual({ name, status: 'failed', reason });
        expect(await nonce(I[name]!.wallet.address)).toBe(0);
        expect(await balance(I[name]!.wallet.address)).toBe(I[name]!.initialBalance);
      }
      for (const name of ['minOut', 'minIn', 'liquidity', 'slippage', 'nothing']) {
        expect({ name, signingRequests: callsFor(I[name]!.id).length }).toEqual({ name, signingRequests: 0 });
      }
    });

    it('cancels a waiting intent for good, and refuses to cancel a buy already submitted', async () => {
      expect(cancelBeforeLaunch.status).toBe(200);
      expect(cancelBeforeLaunch.body).toMatchObject({ id: I.cancelled!.id, status: 'cancelled' });
      expect(cancelAgain.status).toBe(409);
      expect(result('cancelled').status).toBe('cancelled');
      expect(callsFor(I.cancelled!.id)).toHaveLength(0);
      expect(await nonce(I.cancelled!.wallet.address)).toBe(0);

      // Submitted: still pending, its txHash already set; cancel is 409 with details.executing.
      expect(whileSubmitted.status).toBe('pending');
      expect(whileSubmitted.txHash).toBe(result('alpha').txHash);
      expect(cancelSubmitted.status).toBe(409);
      expect(cancelSubmitted.body).toMatchObject({ error: true, name: 'Conflict', details: { executing: true } });
      expect(result('alpha').status).toBe('completed');
    });

    it('notifies creation and outcome to notificationWebhookUrl, signed with the tenant secret', async () => {
      const of = (id: string, event: string) => notifications.filter((n) => n.body.intent?.id === id && n.body.event === event);
      await eventually(
        'created and terminal notifications',
        () =>
          of(I.alpha!.id, 'created').length > 0 &&
          of(I.alpha!.id, 'completed').length > 0 &&
          of(I.minOut!.id, 'created').length > 0 &&
          of(I.minOut!.id, 'failed').length > 0,
        20_000,
        100,
      );
      for (const n of notifications) {
        const ts = String(n.headers['x-notification-timestamp']);
        expect(n.headers['x-notification-signature']).toBe(`v1=${createHmac('sha256', secret).update(`${ts}.${n.raw}`).digest('hex')}`);
        expect(n.headers['x-notification-id']).toBe(n.body.id);
      }
      expect(of(I.alpha!.id, 'completed')[0]!.body.intent).toMatchObject({ status: 'completed', txHash: result('alpha').txHash, statusReason: null });
      expect(of(I.minOut!.id, 'failed')[0]!.body.intent).toMatchObject({ status: 'failed', statusReason: 'min_out_not_met' });
      expect(of(I.minOut!.id, 'failed')[0]!.body).toMatchObject({
        type: 'intent_ignored',
        reason: 'min_out_not_met',
        data: { minOut: I.minOut!.record.minOut },
      });
      expect(of(I.alpha!.id, 'completed')[0]!.body).toMatchObject({ type: 'intent_completed', data: { txHash: result('alpha').txHash } });
      // Only intents with a notificationWebhookUrl are notified.
      const notified = new Set(notifications.map((n) => n.body.intent.id));
      expect([...notified].sort()).toEqual([I.alpha!.id, I.minOut!.id].sort());
    });

    it('search by wallet shows every final status, and nothing left pending', async () => {
      const addresses = Object.values(I).map((m) => m.wallet.address.toLowerCase());
      const all = await stack.request<IntentRecord[]>('POST', '/v1/intents/search', {
        key,
        body: { addresses, status: ['pending', 'completed', 'failed', 'expired', 'cancelled', 'error'], limit: 100 },
      });
      expect(all.status).toBe(200);
      const byId = new Map(all.body.map((r) => [r.id, r]));
      expect(byId.size).toBe(Object.keys(I).length);
      for (const [name, m] of Object.entries(I)) {
        expect({ name, status: byId.get(m.id)?.status, reason: byId.get(m.id)?.statusReason }).toEqual({
          name,
          status: result(name).status,
          reason: result(name).statusReason,
        });
      }
      const pending = await stack.request<IntentRecord[]>('POST', '/v1/intents/search', { key, body: { addresses } });
      expect(pending.status).toBe(200);
      expect(pending.body).toEqual([]);
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('taxes, honeypots and tokens that cannot be bought (three launches in one block)', () => {
    const LAUNCH_TOKENS = 500_000n * ETHER;
    const LAUNCH_NATIVE = 10n * ETHER;
    const I: Record<string, Made> = {};
    let launchBlock: bigint;
    let results: Map<string, IntentRecord>;

    beforeAll(async () => {
      const limits = { maxBuyTax: 0.08, maxSellTax: 0.08 };
      const preTaxQuote = amountOut(400n * MILLI, LAUNCH_NATIVE, LAUNCH_TOKENS);
      // minOut just under the pool's quote, above it after the 5 % buy tax.
      I.taxedMinOut = await createIntent(taxed, {
        ...limits,
        bribe: (9n * MILLI).toString(),
        buyAmount: (400n * MILLI).toString(),
        minOut: (preTaxQuote - 1n).toString(),
      });
      I.taxedOk = await createIntent(taxed, { ...limits, bribe: (8n * MILLI).toString(), buyAmount: (400n * MILLI).toString(), gasTip: '0' });
      I.buyTax = await createIntent(taxed, { maxBuyTax: 0.03, bribe: (7n * MILLI).toString(), buyAmount: (100n * MILLI).toString() });
      I.sellTax = await createIntent(taxed, { maxBuyTax: 0.08, maxSellTax: 0.03, bribe: (6n * MILLI).toString(), buyAmount: (100n * MILLI).toString() });
      I.honeypot = await createIntent(honey, { maxSellTax: 0.5, bribe: (5n * MILLI).toString(), buyAmount: (100n * MILLI).toString() });
      I.anySellTax = await createIntent(honey, {
        maxBuyTax: 0.01,
        maxSellTax: 1,
        bribe: (4n * MILLI).toString(),
        buyAmount: (250n * MILLI).toString(),
        gasTip: '0',
      });
      I.reverting = await createIntent(broken, { bribe: (3n * MILLI).toString(), buyAmount: (100n * MILLI).toString() });

      // Approvals first, then the three first liquidities in one block.
      const erc20 = dex.a.PlainToken!.iface;
      const router = dex.a.UniswapV2Router02!.iface;
      for (const token of [taxed, honey, broken]) await mined(node, dex.owner, token, erc20.encodeFunctionData('approve', [dex.router, MaxUint256]));
      const deadline = Math.floor(Date.now() / 1000) + 3600;
      const hashes: string[] = [];
      for (const token of [taxed, honey, broken]) {
        hashes.push(
          await rpc<string>('eth_sendTransaction', [
            {
              from: dex.owner,
              to: dex.router,
              data: router.encodeFunctionData('addLiquidityETH', [token, LAUNCH_TOKENS, 0, 0, dex.owner, deadline]),
              value: hex(LAUNCH_NATIVE),
              gas: '0x7a1200',
            },
          ]),
        );
      }
      await rpc('evm_mine');
      launchBlock = await head();
      for (const hash of hashes) expect((await receipt(hash)).status).toBe('0x1');

      await settled(Object.values(I).map((m) => m.id));
      await rpc('evm_mine');
      results = await finals(Object.values(I).map((m) => m.id));
    }, 90_000);

    const result = (name: string) => results.get(I[name]!.id)!;

    it('measures the transfer tax by simulation: within the limits the buy completes and gets the quote minus the tax', async () => {
      expect({ status: result('taxedOk').status, reason: result('taxedOk').statusReason }).toEqual({ status: 'completed', reason: null });
      const r = await receipt(result('taxedOk').txHash!);
      expect(r.status).toBe('0x1');
      expect(BigInt(r.blockNumber)).toBe(launchBlock + 1n);
      const quote = amountOut(400n * MILLI, LAUNCH_NATIVE, LAUNCH_TOKENS);
      const tax = (quote * 500n) / 10_000n;
      expect(await dex.balanceOf(taxed, I.taxedOk!.wallet.address)).toBe(quote - tax);
      expect(await dex.balanceOf(taxed, taxTo)).toBe(tax);
      const [call] = callsFor(I.taxedOk!.id);
      expect(BigInt(call!.request.transactions[0]!.summary.expectedOut)).toBe(quote - tax);
      const m = I.taxedOk!;
      expect(m.initialBalance - (await balance(m.wallet.address))).toBe(BigInt(m.body.buyAmount as string) + BigInt(m.body.bribe as string));
    });

    it('fails buy_tax_too_high, sell_tax_too_high, and min_out_not_met when minOut exceeds the quote after the tax', async () => {
      expect({ status: result('buyTax').status, reason: result('buyTax').statusReason }).toEqual({ status: 'failed', reason: 'buy_tax_too_high' });
      expect({ status: result('sellTax').status, reason: result('sellTax').statusReason }).toEqual({ status: 'failed', reason: 'sell_tax_too_high' });
      expect({ status: result('taxedMinOut').status, reason: result('taxedMinOut').statusReason }).toEqual({ status: 'failed', reason: 'min_out_not_met' });
      for (const name of ['buyTax', 'sellTax', 'taxedMinOut']) {
        expect(callsFor(I[name]!.id)).toHaveLength(0);
        expect(await nonce(I[name]!.wallet.address)).toBe(0);
      }
    });

    it('fails a honeypot unless the intent accepts any sell tax, and a token whose transfers revert with buy_reverted', async () => {
      expect({ status: result('honeypot').status, reason: result('honeypot').statusReason }).toEqual({ status: 'failed', reason: 'honeypot' });
      expect({ status: result('reverting').status, reason: result('reverting').statusReason }).toEqual({ status: 'failed', reason: 'buy_reverted' });
      expect(await nonce(I.honeypot!.wallet.address)).toBe(0);
      expect(await nonce(I.reverting!.wallet.address)).toBe(0);
      // maxSellTax 1: "you accept anything" - the honeypot is bought (there is no buy tax).
      expect({ status: result('anySellTax').status, reason: result('anySellTax').statusReason }).toEqual({ status: 'completed', reason: null });
      expect(await dex.balanceOf(honey, I.anySellTax!.wallet.address)).toBe(amountOut(250n * MILLI, LAUNCH_NATIVE, LAUNCH_TOKENS));
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('an intent created after its token launched', () => {
    let m: Made;
    let stateBlock: bigint;
    let record: IntentRecord;

    beforeAll(async () => {
      stateBlock = await head();
      // No gasTip: the default tip (7 wei here) applies. firstOrFail: only the target block.
      m = await createIntent(plain, { bribe: '4200000000000000', buyAmount: (150n * MILLI).toString(), firstOrFail: true });
      await settled([m.id]);
      await rpc('evm_mine');
      record = (await finals([m.id])).get(m.id)!;
    }, 60_000);

    it('executes at once on the newest block, for the next one, with the default gas tip', async () => {
      expect({ status: record.status, reason: record.statusReason }).toEqual({ status: 'completed', reason: null });
      const [call] = callsFor(m.id);
      const req = call!.request;
      expect(req.targetBlock).toBe((stateBlock + 1n).toString());
      // Quoted on the newest block's pool (not the launch block's).
      const reserves = await reservesAt(plain, stateBlock);
      expect(BigInt(req.transactions[0]!.summary.expectedOut)).toBe(amountOut(150n * MILLI, reserves.native, reserves.token));
      const tx = req.transactions[0]!;
      expect(tx.maxPriorityFeePerGas).toBe(DEFAULT_TIP.toString());
      expect(tx.maxFeePerGas).toBe(DEFAULT_TIP.toString()); // 2 × base fee (0) + tip
      expect(tx.summary.onlyInBlock).toBe((stateBlock + 1n).toString());

      const r = await receipt(record.txHash!);
      expect(r.status).toBe('0x1');
      expect(BigInt(r.blockNumber)).toBe(stateBlock + 1n);
      expect(BigInt(r.effectiveGasPrice)).toBe(DEFAULT_TIP);
      const gasCost = BigInt(r.gasUsed) * DEFAULT_TIP;
      const bribe = BigInt(m.body.bribe as string);
      const b = await block(stateBlock + 1n);
      expect((await balance(b.miner, stateBlock + 1n)) - (await balance(b.miner, stateBlock))).toBe(bribe + gasCost);
      expect(m.initialBalance - (await balance(m.wallet.address))).toBe(BigInt(m.body.buyAmount as string) + bribe + gasCost);
      expect(await dex.balanceOf(plain, m.wallet.address)).toBe(amountOut(150n * MILLI, reserves.native, reserves.token));
    });

    it('tells the signer the block it checked the buy on (launchBlock), the one before the target block', () => {
      // packages/contracts SigningRequest: "launchBlock, targetBlock: the state the buy was checked on,
      // and the block it is meant for"; docs/api/intents.md: an intent created after its launch "runs on
      // the chain's state at the newest block (the launch state), for the next block (the target block)".
      const req = callsFor(m.id)[0]!.request;
      expect({ launchBlock: req.launchBlock, targetBlock: req.targetBlock }).toEqual({
        launchBlock: stateBlock.toString(),
        targetBlock: (stateBlock + 1n).toString(),
      });
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('buys that miss their block', () => {
    const I: Record<string, Made> = {};
    let targetBlock: bigint;
    let submitted: Map<string, IntentRecord>;
    let missedBlock: RpcBlock;
    let afterMiss: Map<string, IntentRecord>;
    let resentSeen: boolean;
    let results: Map<string, IntentRecord>;
    let wallClockAtExpiry: number;

    beforeAll(async () => {
      I.strict = await createIntent(plain, { firstOrFail: true, bribe: (3n * MILLI).toString(), buyAmount: (100n * MILLI).toString(), gasTip: '0' });
      I.patient = await createIntent(plain, { bribe: (2n * MILLI).toString(), buyAmount: (100n * MILLI).toString(), gasTip: '0' });
      I.shortLived = await createIntent(plain, {
        expiry: Math.floor(Date.now() / 1000) + 300,
        bribe: (1n * MILLI).toString(),
        buyAmount: (100n * MILLI).toString(),
        gasTip: '0',
      });
      const ids = Object.values(I).map((m) => m.id);
      await settled(ids);
      targetBlock = (await head()) + 1n;
      submitted = new Map();
      for (const id of ids) submitted.set(id, await get(id));
      // The buys leave the mempool, and the node takes no transaction until the next block is
      // mined: that block will not hold them. It is past the short-lived intent's expiry.
      let release!: () => void;
      nodeProxy.holdSends(new Promise<void>((r) => (release = r)));
      try {
        for (const r of submitted.values()) if (r.txHash) await rpc('hardhat_dropTransaction', [r.txHash]);
        await rpc('evm_setNextBlockTimestamp', [hex(BigInt(I.shortLived!.body.expiry as number) + 1n)]);
        await rpc('evm_mine');
      } finally {
        nodeProxy.holdSends(null);
        release();
      }
      missedBlock = await block(targetBlock);

      const strictDone = async () => TERMINAL.includes((await get(I.strict!.id)).status);
      const shortDone = async () => TERMINAL.includes((await get(I.shortLived!.id)).status);
      const patientHash = submitted.get(I.patient!.id)!.txHash;
      await eventually(
        'firstOrFail and expired outcomes, and the patient buy sent again',
        async () => (await strictDone()) && (await shortDone()) && (await rpc('eth_getTransactionByHash', [patientHash])) !== null,
        30_000,
        100,
      );
      resentSeen = true;
      wallClockAtExpiry = Math.floor(Date.now() / 1000);
      afterMiss = new Map();
      for (const id of ids) afterMiss.set(id, await get(id));
      await rpc('evm_mine');
      results = await finals(ids);
    }, 90_000);

    it('every buy was submitted (pending, txHash set) and the target block was missed', () => {
      for (const r of submitted.values()) {
        expect(r.status).toBe('pending');
        expect(r.txHash).toMatch(/^0x[0-9a-f]{64}$/);
      }
      expect(missedBlock.transactions).toEqual([]);
    });

    it('a firstOrFail buy not in its target block fails not_included and pays nothing', async () => {
      const r = results.get(I.strict!.id)!;
      expect({ status: r.status, reason: r.statusReason }).toEqual({ status: 'failed', reason: 'not_included' });
      const m = I.strict!;
      expect(await dex.balanceOf(plain, m.wallet.address)).toBe(0n);
      expect(await balance(m.wallet.address)).toBe(m.initialBalance);
      expect(callsFor(m.id)[0]!.request.transactions[0]!.summary.onlyInBlock).toBe(targetBlock.toString());
    });

    it('any other missed buy stays pending with its txHash, is sent again, and completes in the next block', async () => {
      expect(resentSeen).toBe(true);
      const before = afterMiss.get(I.patient!.id)!;
      expect(before.status).toBe('pending');
      expect(before.txHash).toBe(submitted.get(I.patient!.id)!.txHash);
      const r = results.get(I.patient!.id)!;
      expect({ status: r.status, reason: r.statusReason }).toEqual({ status: 'completed', reason: null });
      expect(r.txHash).toBe(before.txHash);
      const rc = await receipt(r.txHash!);
      expect(rc.status).toBe('0x1');
      expect(BigInt(rc.blockNumber)).toBe(targetBlock + 1n);
      const m = I.patient!;
      expect(m.initialBalance - (await balance(m.wallet.address))).toBe(BigInt(m.body.buyAmount as string) + BigInt(m.body.bribe as string));
      expect(await dex.balanceOf(plain, m.wallet.address)).toBeGreaterThan(0n);
    });

    it('a submitted buy expires when the chain passes its expiry (not the clock), and buys nothing', async () => {
      const m = I.shortLived!;
      // The wall clock is still before the expiry: only the chain's time passed it.
      expect(wallClockAtExpiry).toBeLessThan(m.body.expiry as number);
      expect(afterMiss.get(m.id)!.status).toBe('expired');
      expect(results.get(m.id)!.status).toBe('expired');
      expect(await dex.balanceOf(plain, m.wallet.address)).toBe(0n);
      expect(await balance(m.wallet.address)).toBe(m.initialBalance);
    });
  });
});
