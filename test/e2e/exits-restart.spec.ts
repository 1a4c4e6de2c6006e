import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { IntentRecord } from '@tradeinfra/contracts';
import { devWallet, eventually, HardhatNode, LocalDex, LocalRelay, mined } from '@tradeinfra/test-support';
import { keccak256, Transaction } from 'ethers';
import { Stack } from './harness.js';
import { NotificationSink, startExitChain, stopExitChain, type ExitChain } from './execution-support.js';

/**
 * An exit's sell sent as a bundle `[approve, sell]` and not included, then the intent service
 * restarted: the new process sends the same bundle again for the next block, approve included
 * (it is stored with the sell, not held in memory), and it lands. And an intent service process
 * killed (SIGKILL, INTENT_FAILPOINT) in the middle of its exit round, after the mark or after the
 * send: restarted, it sends the stored sell, and the wallet sells once.
 */
const CHAIN_ID = 31337;
const ETH = 10n ** 18n;
const HELD = 10n ** 24n;
const ROOT = join(import.meta.dirname, '..', '..');

describe('exits across a restart of the intent service', () => {
  let node: HardhatNode;
  let dex: LocalDex;
  let stack: Stack;
  let key: string;
  let relay: LocalRelay;
  let sink: NotificationSink;
  const wallet = devWallet(4);
  const crashed = { 'exit-after-mark': devWallet(5), 'exit-after-send': devWallet(6) };
  const children: ChildProcess[] = [];
  const rpc = <T = any>(method: string, params: unknown[] = []) => node.rpc.call<T>(method, params);
  const get = async (id: string) => (await stack.request<IntentRecord>('GET', `/v1/intent/${id}`, { key })).body;
  /** A take-profit exit of `holder`'s `token` at entry 1 wei per token: it holds at the first block priced. */
  const takeProfitNow = (holder: string, token: string, extra: Record<string, unknown> = {}) =>
    stack.request<IntentRecord>('POST', '/v1/exit', {
      key,
      body: {
        chainId: CHAIN_ID,
        wallet: holder,
        tokenAddress: token,
        entryPrice: '1',
        takeProfit: 2,
        bribe: '0',
        gasTip: '0',
        expiry: Math.floor(Date.now() / 1000) + 3600,
        ...extra,
      },
    });

  let chain: ExitChain | undefined;
  beforeAll(async () => {
    // The relay records bundles and builds none: the first one is missed.
    chain = await startExitChain([wallet, ...Object.values(crashed)], { relay: true, env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' } });
    ({ node, dex, stack, key } = chain);
    relay = chain.relay!;
    const secret = (await stack.request('GET', '/v1/intents/notifications/secret', { key })).body.secret as string;
    sink = await new NotificationSink(() => secret).start();
  }, 180_000);
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.all(children.map(exited));
    await sink?.close();
    await stopExitChain(chain);
  });

  /** An intent service process (what `npm start` runs) with the stack's settings and `extra`; resolves once it listens. */
  async function intentProcess(extra: Record<string, string> = {}): Promise<ChildProcess> {
    const env = { ...stack.env, ...stack.intentDb.env, LOG_FORMAT: 'json', ...extra };
    const child = spawn(process.execPath, [join(ROOT, 'apps', 'intent-service', 'dist', 'main.js')], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let output = '';
    child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    await eventually('the intent service listening', () => /listening on/.test(output) || (child.exitCode !== null && new Error(output)), 60_000, 50).then(
      (r) => {
        if (r instanceof Error) throw r;
      },
    );
    return child;
  }
  function exited(child: ChildProcess): Promise<NodeJS.Signals | number | null> {
    return new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve(child.signalCode ?? child.exitCode);
      child.once('exit', (code, signal) => resolve(signal ?? code));
    });
  }

  it('sends the missed sell again behind its approve after the restart, and it lands', async () => {
    const token = await dex.deployToken('PlainToken', [10n ** 27n]);
    await dex.launch(token, 10n ** 26n, 10n * ETH);
    await mined(node, dex.owner, token, dex.a.PlainToken!.iface.encodeFunctionData('transfer', [wallet.address, HELD]));
    // Entry at 1 wei per token: take-profit holds at the first block priced.
    const res = await takeProfitNow(wallet.address, token);
    expect(res.status).toBe(201);
    await rpc('evm_mine');
    const sellHash = await eventually('the sell sent', async () => (await get(res.body.id)).statusData?.txHash ?? undefined, 30_000);
    const first = await relay.waitFor((b) => b.txs.length > 0 && keccak256(b.txs[b.txs.length - 1]!) === sellHash);
    // The wallet had never approved the router: the bundle is its approve, then its sell.
    expect(first.txs).toHaveLength(2);

    await stack.intentReplicas.shift()!.close();
    // The target block passes without the bundle.
    await rpc('evm_mine');
    const missed = BigInt(await rpc<string>('eth_blockNumber'));
    expect(BigInt(first.blockNumber)).toBeLessThanOrEqual(missed);
    await stack.addIntentReplica();

    const again = await relay.waitFor((b) => BigInt(b.blockNumber) > missed && b.txs.length > 0 && keccak256(b.txs[b.txs.length - 1]!) === sellHash, 30_000);
    expect(again.txs).toEqual(first.txs);
    for (const raw of again.txs) await rpc('eth_sendRawTransaction', [raw]);
    await rpc('evm_mine');
    await eventually('the exit settled', async () => (await get(res.body.id)).status !== 'pending', 30_000);
    expect(await get(res.body.id)).toMatchObject({ status: 'completed', exit: { trigger: 'take_profit' } });
    expect(await dex.balanceOf(token, wallet.address)).toBe(0n);
  });

  it.each(['exit-after-mark', 'exit-after-send'] as const)(
    'killed (SIGKILL) %s: restarted, it sends the stored sell, and the wallet sells once',
    async (failpoint) => {
      const holder = crashed[failpoint].address.toLowerCase();
      while (stack.intentReplicas.length > 0) await stack.intentReplicas.shift()!.close();
      const token = await dex.deployToken('PlainToken', [10n ** 27n]);
      await dex.launch(token, 10n ** 26n, 10n * ETH);
      await mined(node, dex.owner, token, dex.a.PlainToken!.iface.encodeFunctionData('transfer', [holder, HELD]));
      const firstBlock = Number(await rpc<string>('eth_blockNumber')) + 1;
      const nonceBefore = BigInt(await rpc<string>('eth_getTransactionCount', [holder, 'latest']));
      const dying = await intentProcess({ INTENT_FAILPOINT: failpoint });
      // Entry at 1 wei per token: take-profit holds at the first block priced, which fires it and kills the process.
      const res = await takeProfitNow(holder, token, { notificationWebhookUrl: sink.url });
      expect(res.status).toBe(201);
      const id = res.body.id;
      await rpc('evm_mine');
      expect(await exited(dying)).toBe('SIGKILL');

      // Marked (the sell stored, signed), nothing recorded after: handed to the relay only past the mark.
      const [row] = await stack.db.query<{ status: string; phase: string; tx_hash: string; target_block: string }>(
        'SELECT status, phase, tx_hash, target_block::text FROM intent.intents WHERE id = $1',
        [id],
      );
      expect(row).toMatchObject({ status: 'pending', phase: 'submitted' });
      const endsWithSell = (txs: string[]) => txs.length > 0 && keccak256(txs[txs.length - 1]!) === row!.tx_hash;
      expect(relay.bundles.filter((b) => endsWithSell(b.txs))).toHaveLength(failpoint === 'exit-after-mark' ? 0 : 1);

      // Its target block passes without it; the restarted service sends the stored bundle for the next one.
      await rpc('evm_mine');
      const missed = BigInt(await rpc<string>('eth_blockNumber'));
      expect(BigInt(row!.target_block)).toBeLessThanOrEqual(missed);
      const restarted = await intentProcess();
      const again = await relay.waitFor((b) => BigInt(b.blockNumber) > missed && endsWithSell(b.txs), 30_000);
      expect(again.txs).toHaveLength(2);
      for (const raw of again.txs) await rpc('eth_sendRawTransaction', [raw]);
      await rpc('evm_mine');
      await eventually('the exit settled', async () => (await get(id)).status !== 'pending', 30_000);
      const done = await get(id);
      expect(done).toMatchObject({ status: 'completed', txHash: row!.tx_hash, exit: { trigger: 'take_profit' } });
      expect(BigInt(done.statusData!.amountOut!)).toBeGreaterThan(0n);

      // Sold once: of all the bundles the relay saw, one sell from this wallet (the stored one), and on chain its approve and that sell only.
      const signedSells = new Set(
        relay.bundles
          .flatMap((b) => b.txs.map((raw) => Transaction.from(raw)))
          .filter((tx) => tx.from!.toLowerCase() === holder && tx.to!.toLowerCase() === dex.router.toLowerCase())
          .map((tx) => tx.hash),
      );
      expect([...signedSells]).toEqual([row!.tx_hash]);
      const head = Number(await rpc<string>('eth_blockNumber'));
      const blocks = await Promise.all(
        Array.from({ length: head - firstBlock + 1 }, (_, i) => rpc('eth_getBlockByNumber', [`0x${(firstBlock + i).toString(16)}`, true])),
      );
      const sent = blocks.flatMap((b) => b.transactions as { from: string; hash: string }[]).filter((tx) => tx.from.toLowerCase() === holder);
      expect(sent.map((tx) => tx.hash)).toEqual([keccak256(again.txs[0]!), row!.tx_hash]);
      expect(BigInt(await rpc<string>('eth_getTransactionCount', [holder, 'latest']))).toBe(nonceBefore + 2n);
      expect(await dex.balanceOf(token, holder)).toBe(0n);

      // One of each notification, the outcome carrying the sell that landed. A notification the
      // killed process had taken is delivered again once its ack wait passes (NOTIFY_TIMEOUT_MS + 10 s):
      // it may come after the outcome's; sink.for orders them by event id.
      await eventually('tx_pending and completed notified', () => ['tx_pending', 'completed'].every((e) => sink.for(id).some((n) => n.event === e)), 45_000);
      const events = sink.for(id);
      expect(events.map((n) => n.event)).toEqual(['created', 'tx_pending', 'completed']);
      expect(events.every((n) => n.verified)).toBe(true);
      expect(events[2]!.data).toMatchObject({ trigger: 'take_profit', txHash: row!.tx_hash });
      restarted.kill('SIGTERM');
      await exited(restarted);
    },
  );
});
