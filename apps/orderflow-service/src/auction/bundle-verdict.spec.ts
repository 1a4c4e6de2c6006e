import type { SimulatedCall } from '@tradeinfra/contracts';
import type { DecodedTx } from '../intake/transaction-checks.js';
import { judgeBundle, paymentTo } from './bundle-verdict.js';

const BENEFICIARY = `0x${'be'.repeat(20)}`;
const call = (over: Partial<SimulatedCall> = {}): SimulatedCall => ({
  logs: [],
  gasUsed: '0x5208',
  result: '',
  status: 1,
  internalTransfers: [],
  updated: {},
  ...over,
});
const tx = (over: Partial<DecodedTx> = {}): DecodedTx => ({
  raw: '0x02',
  hash: `0x${'01'.repeat(32)}`,
  type: 2,
  chainId: 1n,
  from: `0x${'aa'.repeat(20)}`,
  to: BENEFICIARY,
  nonce: 0,
  value: 100n,
  data: '0x',
  gasLimit: 21_000n,
  maxFeePerGas: 1n,
  ...over,
});

describe('bundle verdict', () => {
  const target = call({ logs: [{ address: `0x${'cc'.repeat(20)}`, topics: [], data: '0x' }] });

  it('bids what the backrun moves to the beneficiary: its value, and nested transfers net of what leaves it', () => {
    const backruns = [
      {
        tx: tx({ to: `0x${'dd'.repeat(20)}`, value: 5n }),
        canRevert: false,
        call: call({ internalTransfers: [{ from: `0x${'dd'.repeat(20)}`, to: BENEFICIARY, amount: '0x64' }] }),
      },
      { tx: tx(), canRevert: false, call: call() },
    ];
    expect(paymentTo(BENEFICIARY, backruns)).toBe(200n);
    expect(judgeBundle(BENEFICIARY, target, target, backruns)).toEqual({ ok: true, bid: 200n, gasUsed: 2n * 0x5208n });
  });

  it('refuses a transaction that reverts unless it may; one that may revert moves nothing', () => {
    const reverted = call({ status: 0, error: { type: 'revert', message: 'nope' } });
    expect(judgeBundle(BENEFICIARY, target, target, [{ tx: tx(), canRevert: false, call: reverted }])).toEqual({
      ok: false,
      reason: expect.stringMatching(/body\[1\] .* reverts \(revert: nope\) and canRevert is false/),
    });
    const verdict = judgeBundle(BENEFICIARY, target, target, [
      { tx: tx(), canRevert: true, call: reverted },
      { tx: tx({ value: 7n }), canRevert: false, call: call() },
    ]);
    expect(verdict).toMatchObject({ ok: true, bid: 7n });
  });

  it('refuses a bundle that pays nothing, or that changes what the target does alone', () => {
    expect(judgeBundle(BENEFICIARY, target, target, [{ tx: tx({ to: `0x${'dd'.repeat(20)}` }), canRevert: false, call: call() }])).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/pays nothing/),
    });
    expect(judgeBundle(BENEFICIARY, call({ status: 0 }), target, [{ tx: tx(), canRevert: false, call: call() }])).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/target transaction's own outcome/),
    });
  });
});
