import { parseInput, SimulateRequestSchema } from '@tradeinfra/contracts';
import type { BlockEnv } from '../chain/chain-state.js';
import { SimulationErrorCode } from '../simulation/simulation.errors.js';
import { carriedKeys, namedAddresses, shapeOf, staticKeys, validateCalls } from './bundle-plan.js';
import { rulesFor } from './hardforks.js';

const USER = '0x00000000000000000000000000000000000000a1';
const TOKEN = '0x00000000000000000000000000000000000000c1';
const RECIPIENT = '0x1111111111111111111111111111111111111111';
const word = (hex: string) => hex.replace(/^0x/, '').padStart(64, '0');

const request = (calls: Record<string, unknown>[]) => parseInput(SimulateRequestSchema, { chainId: 1, blockNumber: 1, calls });

const block = (gasLimit: bigint): BlockEnv => ({
  number: 24_100_000n,
  hash: `0x${'11'.repeat(32)}`,
  timestamp: BigInt(Date.parse('2026-11-20T00:00:00Z') / 1000),
  gasLimit,
  baseFeePerGas: 0n,
  coinbase: `0x${'00'.repeat(20)}`,
  mixHash: `0x${'00'.repeat(32)}`,
  difficulty: 0n,
  excessBlobGas: 0n,
  parentBeaconBlockRoot: null,
});
/** Ethereum mainnet's rules at that block: BPO2, 2^24 gas per transaction, 49152 bytes of init code. */
const osaka = (gasLimit = 60_000_000n) => ({
  rules: rulesFor({ chainId: 1, rpcUrls: ['http://127.0.0.1:1'], hardfork: null }, block(gasLimit)),
  env: block(gasLimit),
});

describe('shapeOf', () => {
  it('names the chain and each call by target (or create) and selector, whatever its sender and arguments', () => {
    const transfer = (amount: string, from = USER) => ({ from, to: TOKEN, data: `0xa9059cbb${word(RECIPIENT)}${word(amount)}` });
    expect(shapeOf(1, request([transfer('0x1'), { from: USER, data: '0x6000' }])).exact).toBe(`1|${TOKEN}:0xa9059cbb|create:0x6000`);
    expect(shapeOf(1, request([transfer('0x1')])).exact).toBe(shapeOf(1, request([transfer('0x2', RECIPIENT)])).exact);
    expect(shapeOf(56, request([transfer('0x1')])).exact).not.toBe(shapeOf(1, request([transfer('0x1')])).exact);
  });

  it('writes a target named earlier in the bundle as where it was named, so another token gives the same shape', () => {
    const ROUTER = '0x00000000000000000000000000000000000000e1';
    const launchThenRead = (token: string) => [
      { from: USER, to: ROUTER, data: `0xf305d719${word(token)}${word('0x64')}` },
      { from: RECIPIENT, to: token, data: `0x70a08231${word(RECIPIENT)}` },
    ];
    const a = '0x2222222222222222222222222222222222222222';
    const b = '0x3333333333333333333333333333333333333333';
    expect(shapeOf(1, request(launchThenRead(a))).exact).toBe(`1|${ROUTER}:0xf305d719|@0.10:0x70a08231`);
    expect(shapeOf(1, request(launchThenRead(b))).exact).toBe(shapeOf(1, request(launchThenRead(a))).exact);
    // The first call's own target is never a reference, even when its data names it.
    expect(shapeOf(1, request([{ from: USER, to: a, data: `0x12345678${word(a)}` }])).exact).toBe(`1|${a}:0x12345678`);
  });

  it('gives a loose shape beside: every target not named earlier in the bundle written *, so a new pair called alike matches', () => {
    const a = '0x2222222222222222222222222222222222222222';
    const b = '0x3333333333333333333333333333333333333333';
    const read = (pair: string) =>
      request([
        { from: USER, to: pair, data: '0x0902f1ac' },
        { from: USER, data: '0x6000' },
      ]);
    expect(shapeOf(1, read(a))).toEqual({ exact: `1|${a}:0x0902f1ac|create:0x6000`, loose: '1|*:0x0902f1ac|create:0x6000' });
    expect(shapeOf(1, read(b)).loose).toBe(shapeOf(1, read(a)).loose);
    // A target named earlier stays where it was named in the loose shape too.
    const launchThenRead = [
      { from: USER, to: a, data: `0xf305d719${word(b)}` },
      { from: USER, to: b, data: '0x70a08231' },
    ];
    expect(shapeOf(1, request(launchThenRead)).loose).toBe('1|*:0xf305d719|@0.10:0x70a08231');
  });
});

describe('carriedKeys', () => {
  const ROUTER = '0x00000000000000000000000000000000000000e1';
  const OLD_TOKEN = '0x2222222222222222222222222222222222222222';
  const NEW_TOKEN = '0x3333333333333333333333333333333333333333';
  const OLD_PAIR = '0x4444444444444444444444444444444444444444';
  const SLOT = `0x${'ab'.repeat(32)}`;
  // addLiquidityETH(token, amount, …, to): the token and the recipient as address words.
  const launch = (token: string) => ({ from: USER, to: ROUTER, data: `0xf305d719${word(token)}${word('0x64')}${word(USER)}` });

  it("gives a new token the last token's keys, keeps the router's, and drops what only the old token had", () => {
    const before = namedAddresses(request([launch(OLD_TOKEN)]));
    const now = namedAddresses(request([launch(NEW_TOKEN)]));
    const keys = [`a:${ROUTER}`, `a:${OLD_TOKEN}`, `s:${OLD_TOKEN}:${SLOT}`, `s:${ROUTER}:${SLOT}`, `a:${OLD_PAIR}`, 'h:7'];
    expect(carriedKeys(keys, before, now)).toEqual([`a:${ROUTER}`, `a:${NEW_TOKEN}`, `s:${NEW_TOKEN}:${SLOT}`, `s:${ROUTER}:${SLOT}`, `a:${OLD_PAIR}`, 'h:7']);
  });

  it('keeps an address that this bundle still names elsewhere, and one named in two places that now differ', () => {
    const both = (a: string, b: string) => ({ from: USER, to: ROUTER, data: `0x12345678${word(a)}${word(b)}` });
    // OLD_TOKEN was in both places; now one place has NEW_TOKEN and the other RECIPIENT: ambiguous.
    expect(
      carriedKeys([`s:${OLD_TOKEN}:${SLOT}`], namedAddresses(request([both(OLD_TOKEN, OLD_TOKEN)])), namedAddresses(request([both(NEW_TOKEN, RECIPIENT)]))),
    ).toEqual([`s:${OLD_TOKEN}:${SLOT}`]);
    // OLD_TOKEN moved to the second place: its keys stay, and the first place's new address gets them too.
    expect(
      carriedKeys([`s:${OLD_TOKEN}:${SLOT}`], namedAddresses(request([both(OLD_TOKEN, RECIPIENT)])), namedAddresses(request([both(NEW_TOKEN, OLD_TOKEN)]))),
    ).toEqual([`s:${NEW_TOKEN}:${SLOT}`, `s:${OLD_TOKEN}:${SLOT}`]);
  });
});

describe('staticKeys', () => {
  it('lists senders, targets and the addresses the calldata names as ABI words, once each', () => {
    const data = `0xa9059cbb${word(RECIPIENT)}${word('0x2a')}${word(TOKEN)}`;
    expect(
      staticKeys(
        request([
          { from: USER, to: TOKEN, data },
          { from: USER, to: TOKEN },
        ]),
      ),
    ).toEqual([`a:${USER}`, `a:${TOKEN}`, `a:${RECIPIENT}`]);
  });

  it('takes no small number for an address, and a creation has no target', () => {
    const data = `0x12345678${word('0xffffffffffff')}`;
    expect(staticKeys(request([{ from: USER, data }]))).toEqual([`a:${USER}`]);
  });
});

describe('validateCalls', () => {
  const reason = (fn: () => unknown) => {
    try {
      fn();
    } catch (err) {
      return err;
    }
    throw new Error('did not throw');
  };

  it('caps each call by the block gas limit, the fork’s transaction cap and SIM_MAX_CALL_GAS, whichever is lowest', () => {
    const { rules, env } = osaka();
    expect(validateCalls(request([{ from: USER, to: TOKEN }]).calls, rules, env, 0)).toBe(1n << 24n);
    expect(validateCalls(request([{ from: USER, to: TOKEN }]).calls, rules, env, 1_000_000)).toBe(1_000_000n);
    const small = osaka(5_000_000n);
    expect(validateCalls(request([{ from: USER, to: TOKEN }]).calls, small.rules, small.env, 0)).toBe(5_000_000n);
  });

  it('refuses a call above the cap, naming the field the caller used and why', () => {
    const { rules, env } = osaka();
    expect(
      reason(() =>
        validateCalls(
          request([
            { from: USER, to: TOKEN },
            { from: USER, to: TOKEN, gasLimit: 2 ** 24 + 1 },
          ]).calls,
          rules,
          env,
          0,
        ),
      ),
    ).toMatchObject({
      code: SimulationErrorCode.Invalid,
      details: [{ path: 'calls.1.gasLimit', message: expect.stringMatching(/^must be at most 16777216: /) }],
    });
    expect(reason(() => validateCalls(request([{ from: USER, to: TOKEN, gas: 1_000_001 }]).calls, rules, env, 1_000_000))).toMatchObject({
      message: 'calls.0.gas: must be at most 1000000: the per-call gas cap of this service (SIM_MAX_CALL_GAS)',
    });
    const small = osaka(5_000_000n);
    expect(reason(() => validateCalls(request([{ from: USER, to: TOKEN, gas: 5_000_001 }]).calls, small.rules, small.env, 0))).toMatchObject({
      message: 'calls.0.gas: must be at most 5000000: the block gas limit',
    });
  });

  it('refuses a creation whose init code is above EIP-3860’s limit, not a call with as much data', () => {
    const { rules, env } = osaka();
    const data = `0x${'00'.repeat(49_153)}`;
    expect(reason(() => validateCalls(request([{ from: USER, data }]).calls, rules, env, 0))).toMatchObject({
      code: SimulationErrorCode.Invalid,
      message: 'calls.0.data: is 49153 bytes of init code; a creation may carry at most 49152 (EIP-3860, on bpo2)',
    });
    expect(validateCalls(request([{ from: USER, to: TOKEN, data }]).calls, rules, env, 0)).toBe(1n << 24n);
    expect(validateCalls(request([{ from: USER, data: `0x${'00'.repeat(49_152)}` }]).calls, rules, env, 0)).toBe(1n << 24n);
  });
});
