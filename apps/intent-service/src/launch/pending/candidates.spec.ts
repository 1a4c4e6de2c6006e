import { AbiCoder, id } from 'ethers';
import { addedLiquidity, isLaunchCandidate, namesWatchedToken } from './candidates.js';

const TOKEN = '0x1111111111111111111111111111111111111111';
const OTHER = '0x2222222222222222222222222222222222222222';
const watch = { router: '0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', factory: '0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', tokens: new Set([TOKEN]) };
const call = (signature: string, types: string[], values: unknown[]) => id(signature).slice(0, 10) + AbiCoder.defaultAbiCoder().encode(types, values).slice(2);

describe('isLaunchCandidate', () => {
  it('takes a transaction to a watched token (openTrading), whatever its calldata, and the router’s or factory’s calls naming one', () => {
    expect(isLaunchCandidate({ to: TOKEN, input: id('openTrading()').slice(0, 10) }, watch)).toBe(true);
    const addLiquidityETH = call(
      'addLiquidityETH(address,uint256,uint256,uint256,address,uint256)',
      ['address', 'uint256', 'uint256', 'uint256', 'address', 'uint256'],
      [TOKEN, 1n, 0n, 0n, OTHER, 9n],
    );
    expect(isLaunchCandidate({ to: watch.router, input: addLiquidityETH }, watch)).toBe(true);
    const createPair = call('createPair(address,address)', ['address', 'address'], [OTHER, TOKEN]);
    expect(isLaunchCandidate({ to: watch.factory.toUpperCase().replace('0X', '0x'), input: createPair }, watch)).toBe(true);
  });

  it('ignores the router’s and factory’s calls about other tokens (most of a busy chain’s pending swaps)', () => {
    const swap = call(
      'swapExactETHForTokens(uint256,address[],address,uint256)',
      ['uint256', 'address[]', 'address', 'uint256'],
      [0n, [OTHER, OTHER], OTHER, 9n],
    );
    expect(isLaunchCandidate({ to: watch.router, input: swap }, watch)).toBe(false);
    expect(isLaunchCandidate({ to: watch.factory, input: '0x' }, watch)).toBe(false);
  });

  it('takes a launch nested in a multicall, 4 bytes off the outer words', () => {
    const inner = call(
      'addLiquidityETH(address,uint256,uint256,uint256,address,uint256)',
      ['address', 'uint256', 'uint256', 'uint256', 'address', 'uint256'],
      [TOKEN, 1n, 0n, 0n, OTHER, 9n],
    );
    const multicall = call('multicall(bytes[])', ['bytes[]'], [[inner]]);
    expect(isLaunchCandidate({ to: '0x4444444444444444444444444444444444444444', input: multicall }, watch)).toBe(true);
    // With many tokens watched only ABI words count: the nested one is not found, by design.
    const many = new Set([TOKEN, ...Array.from({ length: 100 }, (_, i) => `0x${'ab'.repeat(18)}${i.toString(16).padStart(4, '0')}`)]);
    expect(isLaunchCandidate({ to: '0x4444444444444444444444444444444444444444', input: multicall }, { ...watch, tokens: many })).toBe(false);
  });

  it('takes a call elsewhere whose arguments name a watched token (a launcher contract), and not one that does not', () => {
    const launcher = '0x3333333333333333333333333333333333333333';
    const named = call('launch(address,uint256,address)', ['address', 'uint256', 'address'], [OTHER, 5n, TOKEN]);
    expect(isLaunchCandidate({ to: launcher, input: named }, watch)).toBe(true);
    const unnamed = call('launch(address,uint256,address)', ['address', 'uint256', 'address'], [OTHER, 5n, OTHER]);
    expect(isLaunchCandidate({ to: launcher, input: unnamed }, watch)).toBe(false);
  });

  it('ignores contract creations, plain transfers and everything when nothing is watched', () => {
    expect(isLaunchCandidate({ to: null, input: `0x6080${TOKEN.slice(2)}` }, watch)).toBe(false);
    expect(isLaunchCandidate({ to: OTHER, input: '0x' }, watch)).toBe(false);
    expect(isLaunchCandidate({ to: TOKEN, input: '0x' }, { ...watch, tokens: new Set() })).toBe(false);
  });
});

describe('namesWatchedToken', () => {
  it('matches ABI words only: the address bytes inside another word, or a short tail, do not count', () => {
    const tokens = new Set([TOKEN]);
    const selector = '0x12345678';
    expect(namesWatchedToken(`${selector}${'0'.repeat(24)}${TOKEN.slice(2)}`, tokens)).toBe(true);
    // Not 12 zero bytes in front: a number that happens to end in the address.
    expect(namesWatchedToken(`${selector}${'f'.repeat(24)}${TOKEN.slice(2)}`, tokens)).toBe(false);
    // Misaligned by one byte: found by the scan while few tokens are watched, not among many.
    expect(namesWatchedToken(`${selector}00${'0'.repeat(24)}${TOKEN.slice(2)}`, tokens)).toBe(true);
    const many = new Set([TOKEN, ...Array.from({ length: 100 }, (_, i) => `0x${'ab'.repeat(18)}${i.toString(16).padStart(4, '0')}`)]);
    expect(namesWatchedToken(`${selector}00${'0'.repeat(24)}${TOKEN.slice(2)}`, many)).toBe(false);
    expect(namesWatchedToken(`${selector}${'0'.repeat(24)}${TOKEN.slice(2)}`, many)).toBe(true);
    // Truncated calldata.
    expect(namesWatchedToken(`${selector}${'0'.repeat(24)}${TOKEN.slice(2, 30)}`, tokens)).toBe(false);
    // Upper-case hex is the same address.
    expect(namesWatchedToken(`${selector}${'0'.repeat(24)}${TOKEN.slice(2).toUpperCase()}`, tokens)).toBe(true);
  });
});

describe('addedLiquidity', () => {
  const ROUTER = '0x7a250d5630b4cf539739df2c5dacb4c659f2488d';
  const WETH = '0xc02aaa39b223fe8d0a0e5c3756cc2f49b3ecc756';
  const TOKEN = '0x1111111111111111111111111111111111111111';
  const OWNER = '0x2222222222222222222222222222222222222222';
  const w = (v: string | bigint) => (typeof v === 'bigint' ? v.toString(16) : v.slice(2).toLowerCase()).padStart(64, '0');

  it("reads addLiquidityETH: the token's desired amount and the value sent", () => {
    const input = `0xf305d719${w(TOKEN)}${w(10n ** 26n)}${w(0n)}${w(0n)}${w(OWNER)}${w(9n)}`;
    expect(addedLiquidity({ to: ROUTER.toUpperCase().replace('0X', '0x'), input, value: '0x56bc75e2d63100000' }, ROUTER, WETH)).toEqual({
      token: TOKEN,
      tokenAmount: 10n ** 26n,
      nativeAmount: 100n * 10n ** 18n,
    });
  });

  it('reads addLiquidity with the wrapped native token on either side', () => {
    const tail = `${w(0n)}${w(0n)}${w(OWNER)}${w(9n)}`;
    const tokenFirst = `0xe8e33700${w(TOKEN)}${w(WETH)}${w(500n)}${w(7n)}${tail}`;
    const wethFirst = `0xe8e33700${w(WETH)}${w(TOKEN)}${w(7n)}${w(500n)}${tail}`;
    for (const input of [tokenFirst, wethFirst]) {
      expect(addedLiquidity({ to: ROUTER, input, value: '0x0' }, ROUTER, WETH)).toEqual({ token: TOKEN, tokenAmount: 500n, nativeAmount: 7n });
    }
  });

  it('reads nothing from another target, another call, a pool without the wrapped native token, cut calldata or an amount of 0', () => {
    const input = `0xf305d719${w(TOKEN)}${w(10n)}${w(0n)}${w(0n)}${w(OWNER)}${w(9n)}`;
    expect(addedLiquidity({ to: OWNER, input, value: '0x1' }, ROUTER, WETH)).toBeNull();
    expect(addedLiquidity({ to: ROUTER, input: `0x095ea7b3${input.slice(10)}`, value: '0x1' }, ROUTER, WETH)).toBeNull();
    expect(
      addedLiquidity({ to: ROUTER, input: `0xe8e33700${w(TOKEN)}${w(OWNER)}${w(1n)}${w(1n)}${w(0n)}${w(0n)}${w(OWNER)}${w(9n)}`, value: '0x0' }, ROUTER, WETH),
    ).toBeNull();
    expect(addedLiquidity({ to: ROUTER, input: input.slice(0, -64), value: '0x1' }, ROUTER, WETH)).toBeNull();
    expect(addedLiquidity({ to: ROUTER, input, value: '0x0' }, ROUTER, WETH)).toBeNull();
  });
});
