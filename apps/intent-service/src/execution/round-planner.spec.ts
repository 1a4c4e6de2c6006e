import { getAddress } from 'ethers';
import { FailureReason, type PoolState } from './checks.js';
import { type ClaimedIntent } from './execution.repository.js';
import { type SenderState } from './buy-terms.js';
import { planRound, type RoundInput } from './round-planner.js';
import { claimed as intent, ETH, RELAYER, WALLET } from '../test/round-fakes.js';

const OTHER = getAddress('0x00000000000000000000000000000000000000bb');
const EXECUTOR = '0x00000000000000000000000000000000000000dd';
const PAIR = '0x00000000000000000000000000000000000000ee';
const pool: PoolState = { reserveNative: 10n * ETH, reserveToken: 1_000_000n * ETH, liquidityCents: null };

const state = (over: Partial<SenderState> = {}): SenderState => ({
  nonce: new Map([
    [WALLET, 7n],
    [OTHER, 0n],
    [RELAYER, 3n],
  ]),
  balance: new Map([
    [WALLET, 10n * ETH],
    [OTHER, 10n * ETH],
    [RELAYER, 10n * ETH],
  ]),
  wrapped: new Map(),
  nonceSpent: new Set(),
  ...over,
});

const input = (intents: ClaimedIntent[], over: Partial<RoundInput> = {}): RoundInput => ({
  chain: { chainId: 31337, router: '0x0000000000000000000000000000000000000e01', wrappedNative: '0xffffffffffffffffffffffffffffffffffffffff' },
  wallets: null,
  token: '0x0000000000000000000000000000000000000701',
  targetBlock: 101n,
  baseFee: 1_000_000_000n,
  defaultGasTip: 2_000_000_000n,
  launchPool: pool,
  probe: { buyTax: 0n, sellTax: 0n, buyGas: 150_000n },
  intents,
  state: state(),
  devSignerHolds: () => false,
  ...over,
});

describe('planRound', () => {
  it('builds buys in checking order, each quoted on the pool the earlier ones leave, with the wallet’s nonces ascending', () => {
    const { failures, jobs } = planRound(input([intent('a'), intent('b'), intent('c', { wallet: OTHER })]));
    expect(failures).toEqual([]);
    expect(jobs.map((j) => [j.intent.id, j.tx.from, j.tx.nonce])).toEqual([
      ['a', WALLET, 7],
      ['b', WALLET, 8],
      ['c', OTHER, 0],
    ]);
    const out = jobs.map((j) => BigInt(j.tx.summary.expectedOut));
    expect(out[1]).toBeLessThan(out[0]!);
    expect(out[2]).toBeLessThan(out[1]!);
    const [a] = jobs;
    expect(a!.tx.gasLimit).toBe(String((150_000n * 3n) / 2n + 30_000n));
    expect(a!.tx.maxFeePerGas).toBe(String(2n * 1_000_000_000n + 2_000_000_000n));
    expect(a!.tx.value).toBe(String(ETH / 10n));
    expect(a!.tx.to).toBeNull();
  });

  it('uses the intent’s own gas tip over the default, and pins a firstOrFail buy to the target block', () => {
    const { jobs } = planRound(input([intent('a', { gasTip: '5', firstOrFail: true })]));
    expect(jobs[0]!.tx.maxPriorityFeePerGas).toBe('5');
    expect(jobs[0]!.tx.maxFeePerGas).toBe(String(2_000_000_000n + 5n));
    expect(jobs[0]!.tx.summary.onlyInBlock).toBe('101');
    expect(jobs[0]!.tx.summary.onlyInLaunchBlockOf).toBeNull();
  });

  it('fails a buy the wallet cannot pay for, and spends its balance for the next ones', () => {
    const poor = state({ balance: new Map([[WALLET, ETH / 10n + ETH / 100n]]) });
    const { failures, jobs } = planRound(input([intent('a'), intent('b')], { state: poor }));
    expect(jobs.map((j) => j.intent.id)).toEqual(['a']);
    expect(failures.map((f) => [f.id, f.reason])).toEqual([['b', FailureReason.InsufficientFunds]]);
    expect(failures[0]!.data).toEqual({ balance: expect.any(String), required: expect.any(String) });
  });

  it('fails an intent with no webhook that no development signer holds; signs one a development signer holds', () => {
    const r = planRound(input([intent('a', { webhookUrl: null })]));
    expect(r.failures.map((f) => f.reason)).toEqual([FailureReason.NoSigner]);
    const held = planRound(input([intent('a', { webhookUrl: null })], { devSignerHolds: (w) => w === WALLET }));
    expect(held.jobs).toHaveLength(1);
  });

  it('fails every intent when nothing was to buy or the simulated buy reverted', () => {
    expect(planRound(input([intent('a', { feeBps: 10_000 })], { probe: null })).failures).toEqual([
      { id: 'a', reason: FailureReason.NothingToBuy, detail: 'buyAmount after the fee is 0', data: { buyAmount: String(ETH / 10n), fee: String(ETH / 10n) } },
    ]);
    expect(planRound(input([intent('a'), intent('b')], { probe: { reverted: 'TRANSFER_FAILED' } })).failures.map((f) => [f.id, f.reason, f.detail])).toEqual([
      ['a', FailureReason.BuyReverted, 'a simulated buy reverted: TRANSFER_FAILED'],
      ['b', FailureReason.BuyReverted, 'a simulated buy reverted: TRANSFER_FAILED'],
    ]);
  });

  it('fails an intent its checks refuse (a buy tax above its maximum)', () => {
    const r = planRound(input([intent('a', { maxBuyTax: '0.01' })], { probe: { buyTax: 10n ** 17n, sellTax: 0n, buyGas: 1n } }));
    expect(r.failures.map((f) => f.reason)).toEqual([FailureReason.BuyTaxTooHigh]);
  });

  describe('wallet intents', () => {
    const signed = (id: string, over: Partial<ClaimedIntent> = {}) => intent(id, { webhookUrl: null, signature: `0x${'11'.repeat(65)}`, nonce: '9', ...over });
    const wallets = { executor: EXECUTOR, relayerAddress: RELAYER };
    const funded = () => state({ wrapped: new Map([[WALLET.toLowerCase(), { balance: ETH, allowance: ETH }]]) });

    it('sends the relayer’s call of the executor, paid from the wallet’s wrapped native', () => {
      const s = funded();
      const { failures, jobs } = planRound(input([signed('w')], { wallets, state: s }));
      expect(failures).toEqual([]);
      expect(jobs[0]!.tx).toMatchObject({ from: RELAYER, nonce: 3, value: '0', to: getAddress(EXECUTOR) });
      expect(s.wrapped.get(WALLET.toLowerCase())).toEqual({ balance: ETH - ETH / 10n, allowance: ETH - ETH / 10n });
    });

    it('fails where the chain has no executor, the nonce is spent, or the allowance is short', () => {
      expect(planRound(input([signed('w')])).failures.map((f) => f.reason)).toEqual([FailureReason.NoSigner]);
      expect(planRound(input([signed('w')], { wallets, state: { ...funded(), nonceSpent: new Set(['w']) } })).failures.map((f) => f.reason)).toEqual([
        FailureReason.NonceUsed,
      ]);
      const short = state({ wrapped: new Map([[WALLET.toLowerCase(), { balance: ETH, allowance: 1n }]]) });
      expect(planRound(input([signed('w')], { wallets, state: short })).failures.map((f) => f.reason)).toEqual([FailureReason.AllowanceTooLow]);
      expect(planRound(input([signed('w', { firstOrFail: true })], { wallets, state: funded() })).failures.map((f) => f.reason)).toEqual([
        FailureReason.NotIncluded,
      ]);
    });
  });

  describe('behind a pending launch', () => {
    it('caps each buy’s tip at the launch’s on a node’s pool, and leaves lower tips as they are', () => {
      const { jobs } = planRound(
        input([intent('a', { gasTip: '5000' }), intent('b', { gasTip: '7', wallet: OTHER })], { behindLaunch: { tipCap: 100n, pair: PAIR } }),
      );
      expect(jobs.map((j) => j.tx.maxPriorityFeePerGas)).toEqual(['100', '7']);
      // Through relays the bundle orders them: no cap.
      const relayed = planRound(input([intent('a', { gasTip: '5000' })], { behindLaunch: { tipCap: null, pair: PAIR } }));
      expect(relayed.jobs[0]!.tx.maxPriorityFeePerGas).toBe('5000');
    });

    it("pins a firstOrFail buy to the launch's block, whichever it is (the pair's first liquidity), not to a block number", () => {
      const { jobs } = planRound(input([intent('a', { firstOrFail: true }), intent('b', { wallet: OTHER })], { behindLaunch: { tipCap: null, pair: PAIR } }));
      expect(jobs.map((j) => j.tx.summary.onlyInBlock)).toEqual([null, null]);
      expect(jobs.map((j) => j.tx.summary.onlyInLaunchBlockOf)).toEqual([getAddress(PAIR), null]);
      // The pair's views in the firstOrFail buy's code only: getReserves, price0CumulativeLast, price1CumulativeLast.
      const views = (data: string) => ['0902f1ac', '5909c0d5', '5a3d5493'].filter((sel) => data.includes(`63${sel}`));
      expect(views(jobs[0]!.tx.data)).toHaveLength(3);
      expect(views(jobs[1]!.tx.data)).toHaveLength(0);
    });

    it('buys a firstOrFail wallet intent in the launch block (a launch seen in a block cannot qualify)', () => {
      const signed = intent('w', { webhookUrl: null, signature: `0x${'11'.repeat(65)}`, nonce: '9', firstOrFail: true });
      const wallets = { executor: EXECUTOR, relayerAddress: RELAYER };
      const funded = state({ wrapped: new Map([[WALLET.toLowerCase(), { balance: ETH, allowance: ETH }]]) });
      const r = planRound(input([signed], { wallets, state: funded, behindLaunch: { tipCap: null, pair: PAIR } }));
      expect(r.failures).toEqual([]);
      expect(r.jobs).toHaveLength(1);
    });
  });
});
