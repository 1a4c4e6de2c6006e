import type { UnsignedTransaction } from '@tradeinfra/contracts';
import type { ExitChain, Firing, SenderReads } from './exit-chain.js';
import { quote, SellSigner } from './exit-signing.js';
import type { WatchedExit } from './exits.repository.js';
import { watchedExit } from '../test/watched-exit.js';

const ETH = 10n ** 18n;
const POOL = { reserveToken: 1_000_000n * ETH, reserveNative: 100n * ETH };
const WALLET = '0x00000000000000000000000000000000000000a1';
const TOKEN = '0x00000000000000000000000000000000000000b2';
const HEAD = { number: '0x10', hash: '0xh', timestamp: '0x1', baseFeePerGas: '0x64' };

const exit = (id: string, over: Partial<WatchedExit> = {}): WatchedExit => watchedExit(id, { wallet: WALLET, token: TOKEN, amount: 1_000n * ETH, ...over });
const firing = (e: WatchedExit): Firing => ({ exit: e, amount: e.amount!, trigger: 'on_rug', price: 1n });

/** A chain whose development signer signs everything, counting what it signed. */
function chain() {
  const signed: UnsignedTransaction[] = [];
  const devSigner = {
    sign: (tx: UnsignedTransaction) => {
      signed.push(tx);
      return Promise.resolve({ ok: true as const, raw: `0xraw${signed.length}`, hash: `0xhash${signed.length}` });
    },
  };
  const c = {
    config: { chainId: 31337, router: '0x00000000000000000000000000000000000000c3', wrappedNative: '0x00000000000000000000000000000000000000d4' },
    devSigner,
    signedAhead: new Map(),
  };
  return { chain: c as unknown as ExitChain, signed };
}

const senders = (nonce: bigint, allowance: bigint, ids: string[]): SenderReads => ({
  nonces: new Map([[WALLET, nonce]]),
  allowances: new Map(ids.map((id) => [id, allowance])),
});

describe('exit sells: quote, build, sign', () => {
  it('quotes highest bribe first on the pool the sells before leave, leaving out a quote under minOut', () => {
    const small = exit('a', { bribe: 1n });
    const first = exit('b', { bribe: 5n });
    const greedy = exit('c', { bribe: 3n, minOut: 100n * ETH });
    const { quoted, short } = quote(POOL, 0n, [small, first, greedy].map(firing));
    expect(quoted.map((q) => q.exit.id)).toEqual(['b', 'a']);
    expect(quoted[1]!.out).toBeLessThan(quoted[0]!.out);
    expect(short).toEqual([{ id: 'c', minOut: 100n * ETH, quoted: expect.any(BigInt) }]);
  });

  it('builds approve then sell at consecutive nonces when the allowance is short, and outbids a minimum tip', () => {
    const { chain: c } = chain();
    const signer = new SellSigner({ sign: () => Promise.reject(new Error('no webhook here')) } as never, 7n);
    const { quoted } = quote(POOL, 0n, [firing(exit('a', { gasTip: null }))]);
    const [job] = signer.build(c, HEAD, TOKEN, quoted, senders(4n, 0n, ['a']), 1_000n);
    expect(job!.approve).toMatchObject({ nonce: 4, purpose: 'approve' });
    expect(job!.sell).toMatchObject({ nonce: 5, purpose: 'sell', maxPriorityFeePerGas: '1000', maxFeePerGas: String(2 * 100 + 1000) });
    const [own] = signer.build(c, HEAD, TOKEN, quoted, senders(4n, ETH * ETH, ['a']));
    expect(own!.approve).toBeNull();
    expect(own!.sell).toMatchObject({ nonce: 4, maxPriorityFeePerGas: '7' });
  });

  it('outbids a rug only as far as the sale’s minOut pays for the priority fee', () => {
    const { chain: c } = chain();
    const signer = new SellSigner({ sign: () => Promise.reject(new Error('no webhook here')) } as never, 7n);
    const { quoted } = quote(POOL, 0n, [firing(exit('a', { gasTip: null }))]);
    const minOut = quoted[0]!.minOut;
    // A rug bidding more per gas than the whole sale is worth: the sell's fee stops at its minOut.
    const [job] = signer.build(c, HEAD, TOKEN, quoted, senders(4n, ETH * ETH, ['a']), minOut);
    const tip = BigInt(job!.sell.maxPriorityFeePerGas);
    expect(tip).toBeLessThan(minOut);
    expect(tip * BigInt(job!.sell.gasLimit)).toBeLessThanOrEqual(minOut);
    expect((tip + 1n) * BigInt(job!.sell.gasLimit)).toBeGreaterThan(minOut);
  });

  it('reuses a sell signed ahead while its terms hold, and signs again when the price leaves its minOut behind', async () => {
    const { chain: c, signed } = chain();
    const signer = new SellSigner({ sign: () => Promise.reject(new Error('no webhook here')) } as never, 0n);
    const round = async (pool: typeof POOL, nonce: bigint) => {
      const { quoted } = quote(pool, 0n, [firing(exit('a'))]);
      const jobs = signer.build(c, HEAD, TOKEN, quoted, senders(nonce, ETH * ETH, ['a']));
      await signer.sign(c, jobs, 17n, true);
      return jobs[0]!.signed;
    };
    const first = await round(POOL, 1n);
    expect(signed).toHaveLength(1);
    expect(await round(POOL, 1n)).toEqual(first);
    // 1 % lower: the kept minOut (5 % under the old quote) is still under the new quote and above its least.
    expect(await round({ ...POOL, reserveNative: (POOL.reserveNative * 99n) / 100n }, 1n)).toEqual(first);
    expect(signed).toHaveLength(1);
    // 10 % lower: the kept sell would revert; signed again.
    await round({ ...POOL, reserveNative: (POOL.reserveNative * 90n) / 100n }, 1n);
    expect(signed).toHaveLength(2);
    // The wallet's nonce moved: signed again.
    await round({ ...POOL, reserveNative: (POOL.reserveNative * 90n) / 100n }, 2n);
    expect(signed).toHaveLength(3);
  });

  it('signs a webhook exit only for a round that sends, never ahead', async () => {
    const { chain: c, signed } = chain();
    const asked: string[] = [];
    const webhooks = { sign: (j: { intentId: string }) => (asked.push(j.intentId), Promise.resolve({ ok: true, raw: '0xw', hash: '0xwh' })) };
    const signer = new SellSigner(webhooks as never, 0n);
    const { quoted } = quote(POOL, 0n, [firing(exit('w', { webhookUrl: 'https://signer.example' }))]);
    const jobs = signer.build(c, HEAD, TOKEN, quoted, senders(0n, ETH * ETH, ['w']));
    await signer.sign(c, jobs, 17n, true);
    expect(jobs[0]!.signed).toBeNull();
    await signer.sign(c, jobs, 17n, false);
    expect(jobs[0]!.signed).toEqual({ approve: null, sell: { raw: '0xw', hash: '0xwh' } });
    expect(asked).toEqual(['w']);
    expect(signed).toHaveLength(0);
  });
});
