import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { jetstream } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { mevCaptureSubject } from '@tradeinfra/contracts';
import { devWallet, eventually, HardhatNode, LocalDex, mined } from '@tradeinfra/test-support';
import { Wallet } from 'ethers';
import { Stack } from './harness.js';

/**
 * Automatic settlement on a local chain: with PAYOUT_SIGNER_KEY_<chainId> the payout service
 * sends each requested payout itself (native coin, or an ERC-20 `transfer`) and follows it to
 * PAID (after PAYOUT_CONFIRMATIONS blocks) or TX_FAILED. Crashes (a real SIGKILL of a payout
 * service process at a failpoint) and two replicas never pay twice.
 */
const CHAIN_ID = 31337;
const ETH = 10n ** 18n;
const ROOT = join(import.meta.dirname, '..', '..');

describe('automatic payout settlement', () => {
  let node: HardhatNode;
  let dex: LocalDex;
  let stack: Stack;
  let nc: NatsConnection;
  let admin: string;
  let token: string;
  let broken: string;
  const treasury = devWallet(18);
  let settlementEnv: Record<string, string>;
  const children: ChildProcess[] = [];

  const rpc = <T = any>(method: string, params: unknown[] = []) => node.rpc.call<T>(method, params);
  const balance = async (address: string) => BigInt(await rpc('eth_getBalance', [address, 'latest']));
  const txCount = async (address: string) => BigInt(await rpc('eth_getTransactionCount', [address, 'latest']));

  /** A source of its own tenant holding `amounts` of `asset` in captured MEV; returns its id and the tenant's key. */
  async function sourceWith(asset: string, amounts: string[]): Promise<{ source: string; key: string }> {
    const tenant = `tenant-${randomUUID()}`;
    const key = await stack.createKey({ tenant });
    const source = `src-${randomBytes(4).toString('hex')}`;
    // A payout service that has just been started answers once it has joined NATS (503 until then).
    const registered = await eventually(
      'a payout service answers',
      async () => {
        const res = await stack.request('POST', '/v1/sources', { key: admin, body: { id: source, tenant } });
        return res.status === 503 ? undefined : res;
      },
      30_000,
    );
    expect(registered.status).toBe(201);
    const js = jetstream(nc);
    for (const amount of amounts) {
      const event = {
        id: randomUUID(),
        chainId: CHAIN_ID,
        txHash: `0x${randomBytes(32).toString('hex')}`,
        sourceId: source,
        asset,
        amount,
        type: 'mev',
        time: new Date().toISOString(),
      };
      await js.publish(mevCaptureSubject(CHAIN_ID), JSON.stringify(event));
    }
    await eventually('entries ingested', async () => {
      const rows = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM payout.entries WHERE source_id = $1', [source]);
      return rows[0]!.n === amounts.length;
    });
    return { source, key };
  }

  async function requestPayout(s: { source: string; key: string }, asset: string, address: string): Promise<string> {
    const res = await stack.request('POST', `/v1/cashback/source/${s.source}/payout`, { key: s.key, body: { address, chainId: CHAIN_ID, asset } });
    expect(res.status).toBe(201);
    return res.body.id as string;
  }
  const payout = async (id: string) =>
    (await stack.db.query<{ status: string; tx_hash: string | null }>('SELECT status, tx_hash FROM payout.payouts WHERE id = $1', [id]))[0]!;
  const statusIs = (id: string, status: string) => async () => (await payout(id)).status === status;

  /** A payout service process (what `npm start` runs), with the settlement settings and `extra`. */
  function payoutProcess(extra: Record<string, string> = {}): ChildProcess {
    const env = { ...process.env, ...stack.db.env, ...stack.nats.env, PAYOUT_DB_POOL_SIZE: '4', LOG_FORMAT: 'json', ...settlementEnv, ...extra };
    const child = spawn(process.execPath, [join(ROOT, 'apps', 'payout-service', 'dist', 'main.js')], { cwd: ROOT, env, stdio: 'ignore' });
    children.push(child);
    return child;
  }
  const exited = (child: ChildProcess) =>
    new Promise<NodeJS.Signals | number | null>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve(child.signalCode ?? child.exitCode);
      child.once('exit', (code, signal) => resolve(signal ?? code));
    });
  /** Stops every payout service: the in-process replicas and the processes. */
  async function stopPayoutServices(): Promise<void> {
    while (stack.payoutReplicas.length > 0) await stack.payoutReplicas.shift()!.close();
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await Promise.all(children.map(exited));
  }

  beforeAll(async () => {
    node = await HardhatNode.start({ chainId: CHAIN_ID });
    dex = await LocalDex.deploy(node);
    token = await dex.deployToken('PlainToken', [10n ** 27n]);
    broken = await dex.deployToken('RevertingToken', [10n ** 27n]);
    const erc20 = dex.a.PlainToken!.iface;
    // The treasury holds tokens of both (the broken one may be sent to it by its owner, not by it).
    await mined(node, dex.owner, token, erc20.encodeFunctionData('transfer', [treasury.address, 1000n * ETH]));
    await mined(node, dex.owner, broken, erc20.encodeFunctionData('transfer', [treasury.address, 1000n * ETH]));
    settlementEnv = {
      PAYOUT_CHAIN_IDS: String(CHAIN_ID),
      PAYOUT_ASSETS: 'ETH:18,TKN:18,BRK:18,USDC:6',
      PAYOUT_SIGNER_KEY_31337: treasury.privateKey,
      PAYOUT_RPC_URL_31337: node.url,
      PAYOUT_TOKEN_31337_TKN: token,
      PAYOUT_TOKEN_31337_BRK: broken,
      PAYOUT_CONFIRMATIONS: '2',
      PAYOUT_SETTLE_INTERVAL_MS: '100',
      PAYOUT_GAS_TIP_WEI: '1',
    };
    stack = await Stack.start(settlementEnv);
    nc = await connect({ servers: stack.nats.url });
    admin = await stack.createKey({ scopes: ['admin'] });
  }, 180_000);

  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.all(children.map(exited));
    await nc?.close();
    await stack?.close();
    await node?.stop();
  });

  it('pays the native coin and an ERC-20 token to the wei, PAID only after the configured confirmations', async () => {
    const recipient = Wallet.createRandom().address;
    const eth = await sourceWith('ETH', ['0.25', '0.000000000000000001']);
    const tkn = await sourceWith('TKN', ['12.5', '0.5']);
    const minedRow = (id: string) =>
      eventually(`payout ${id} sent and mined`, async () => {
        const row = await payout(id);
        return row.tx_hash && (await rpc('eth_getTransactionReceipt', [row.tx_hash])) ? row : undefined;
      });
    const ethPayout = await requestPayout(eth, 'ETH', recipient);
    // Mined (the node automines, one block per transaction) but one block deep: not PAID yet.
    const ethSent = await minedRow(ethPayout);
    expect(ethSent.status).toBe('TX_PENDING');
    const tknPayout = await requestPayout(tkn, 'TKN', recipient);
    await minedRow(tknPayout);
    await eventually('the first PAID (its second block is the token transfer’s)', statusIs(ethPayout, 'PAID'));
    await rpc('evm_mine');
    await eventually('the second PAID', statusIs(tknPayout, 'PAID'));
    const sent = [ethSent];
    expect(await balance(recipient)).toBe(ETH / 4n + 1n);
    expect(await dex.balanceOf(token, recipient)).toBe(13n * ETH);
    // The record carries the transaction under both names; the entries are PAID.
    const record = await stack.request('GET', `/v1/cashback/payout/${ethPayout}`, { key: eth.key });
    expect(record.body).toMatchObject({ status: 'PAID', txHash: sent[0]!.tx_hash, tx_hash: sent[0]!.tx_hash });
    const entries = await stack.db.query<{ status: string }>('SELECT status FROM payout.entries WHERE source_id = $1', [eth.source]);
    expect(entries.map((e) => e.status)).toEqual(['PAID', 'PAID']);
  });

  it('a reverting token transfer ends TX_FAILED and releases the entries; an asset without a token address stays manual', async () => {
    const recipient = Wallet.createRandom().address;
    const brk = await sourceWith('BRK', ['3']);
    const failing = await requestPayout(brk, 'BRK', recipient);
    await eventually('sent and mined', async () => {
      const { tx_hash } = await payout(failing);
      return tx_hash !== null && (await rpc('eth_getTransactionReceipt', [tx_hash])) !== null;
    });
    await rpc('evm_mine');
    await eventually('TX_FAILED', statusIs(failing, 'TX_FAILED'));
    const receipt = await rpc('eth_getTransactionReceipt', [(await payout(failing)).tx_hash]);
    expect(receipt.status).toBe('0x0');
    expect(await dex.balanceOf(broken, recipient)).toBe(0n);
    // The entries are claimable again: a new request claims them.
    expect(
      (await stack.request('POST', `/v1/cashback/source/${brk.source}/payout`, { key: brk.key, body: { address: recipient, chainId: CHAIN_ID, asset: 'BRK' } }))
        .status,
    ).toBe(201);

    const usdc = await sourceWith('USDC', ['7']);
    const manual = await requestPayout(usdc, 'USDC', recipient);
    // Another payout sent after it proves the settler has had its turns: the USDC one is untouched.
    const witness = await requestPayout(await sourceWith('ETH', ['0.001']), 'ETH', recipient);
    await eventually('witness sent', async () => (await payout(witness)).tx_hash !== null);
    expect(await payout(manual)).toEqual({ status: 'PENDING', tx_hash: null });
  });

  it.each([['after-sign'], ['after-send']])('a payout service killed (SIGKILL) %s pays exactly once after a restart', async (failpoint) => {
    await stopPayoutServices();
    const recipient = Wallet.createRandom().address;
    const nonceBefore = await txCount(treasury.address);
    const dying = payoutProcess({ PAYOUT_FAILPOINT: failpoint });
    const s = await sourceWith('ETH', ['1.5']);
    const id = await requestPayout(s, 'ETH', recipient);
    expect(await exited(dying)).toBe('SIGKILL');
    const stored = await payout(id);
    expect(stored.status).toBe('TX_PENDING');
    const known = await rpc('eth_getTransactionByHash', [stored.tx_hash]);
    if (failpoint === 'after-sign')
      expect(known).toBeNull(); // stored, never sent
    else expect(known).not.toBeNull();
    payoutProcess();
    await eventually('mined', async () => (await rpc('eth_getTransactionReceipt', [stored.tx_hash])) !== null, 30_000);
    await rpc('evm_mine');
    await eventually('PAID', statusIs(id, 'PAID'), 30_000);
    // The stored transaction, exactly once: one nonce, one credit.
    expect((await payout(id)).tx_hash).toBe(stored.tx_hash);
    expect(await balance(recipient)).toBe((3n * ETH) / 2n);
    expect(await txCount(treasury.address)).toBe(nonceBefore + 1n);
  });

  it('two replicas settle 12 payouts requested at once: each paid once, one nonce each', async () => {
    await stopPayoutServices();
    await stack.addPayoutReplica();
    await stack.addPayoutReplica();
    const nonceBefore = await txCount(treasury.address);
    const recipients = Array.from({ length: 12 }, () => Wallet.createRandom().address);
    const sources = await Promise.all(recipients.map(() => sourceWith('ETH', ['0.01', '0.02'])));
    const ids = await Promise.all(sources.map((s, i) => requestPayout(s, 'ETH', recipients[i]!)));
    await eventually(
      'all sent and mined',
      async () => {
        const rows = await Promise.all(ids.map(payout));
        if (!rows.every((r) => r.tx_hash)) return false;
        return (await Promise.all(rows.map((r) => rpc('eth_getTransactionReceipt', [r.tx_hash])))).every(Boolean);
      },
      30_000,
    );
    await rpc('evm_mine');
    await eventually('all PAID', async () => (await Promise.all(ids.map(payout))).every((r) => r.status === 'PAID'), 30_000);
    for (const r of recipients) expect(await balance(r)).toBe((3n * ETH) / 100n);
    expect(await txCount(treasury.address)).toBe(nonceBefore + 12n);
  });
});
