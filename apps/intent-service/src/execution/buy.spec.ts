import { AbiCoder } from 'ethers';
import { buyInitCode, routerBuyCalldata, SWAP_ETH_FOR_TOKENS, type BuyPlan } from './buy.js';
import { getAmountOut } from '../chain/uniswap-v2.js';

const plan: BuyPlan = {
  router: '0x7a250d5630B4cF539739dF2C5dAcb4c659F2488D',
  wrappedNative: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
  token: '0x6B175474E89094C44Da98b954EedeAC495271d0F',
  wallet: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  swapValue: 990n,
  amountOutMin: 12345n,
  deadline: 1_900_000_000n,
  fee: 10n,
  feeRecipient: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
  bribe: 7n,
  onlyInBlock: null,
  onlyInLaunchBlockOf: null,
};

describe('buyInitCode', () => {
  it('ends with the router call data, swapping for the wallet with amountOutMin and the deadline', () => {
    const code = buyInitCode(plan);
    const calldata = routerBuyCalldata(plan);
    expect(code.endsWith(calldata.slice(2))).toBe(true);
    expect(calldata.startsWith(SWAP_ETH_FOR_TOKENS)).toBe(true);
    const [min, path, to, deadline] = AbiCoder.defaultAbiCoder().decode(['uint256', 'address[]', 'address', 'uint256'], `0x${calldata.slice(10)}`);
    expect([min, [...path], to, deadline]).toEqual([12345n, [plan.wrappedNative, plan.token], plan.wallet, plan.deadline]);
  });

  it('sends swapValue to the router, the fee to the recipient, and the rest to the coinbase', () => {
    const code = buyInitCode(plan).toLowerCase();
    const push32 = (n: bigint) => `7f${n.toString(16).padStart(64, '0')}`;
    expect(code).toContain(push32(990n) + '73' + plan.router.slice(2).toLowerCase() + '5af1');
    expect(code).toContain(push32(10n) + '73' + plan.feeRecipient!.slice(2).toLowerCase() + '5af1');
    expect(code).toContain('41ff'); // COINBASE SELFDESTRUCT
    // Without a fee there is no second call.
    const noFee = buyInitCode({ ...plan, fee: 0n, feeRecipient: null }).toLowerCase();
    expect(noFee.split('5af1').length - 1).toBe(1);
  });

  it('pins a firstOrFail buy to its block', () => {
    const pinned = buyInitCode({ ...plan, onlyInBlock: 0x1234n }).toLowerCase();
    expect(pinned.startsWith('0x67' + '1234'.padStart(16, '0') + '4314')).toBe(true); // PUSH8 block, NUMBER, EQ
    expect(buyInitCode(plan).startsWith('0x67')).toBe(false);
  });

  it('is deterministic and refuses a fee without a recipient', () => {
    expect(buyInitCode(plan)).toBe(buyInitCode({ ...plan }));
    expect(() => buyInitCode({ ...plan, feeRecipient: null })).toThrow('fee recipient');
  });
});

describe('getAmountOut', () => {
  it('is Uniswap V2’s formula with the 0.3 % fee, rounding down', () => {
    expect(getAmountOut(1000n, 1_000_000n, 1_000_000n)).toBe(996n);
    expect(getAmountOut(10n ** 18n, 10n ** 19n, 10n ** 24n)).toBe(90_661_089_388_014_913_158_134n);
    expect(getAmountOut(0n, 1n, 1n)).toBe(0n);
    expect(getAmountOut(1n, 0n, 1n)).toBe(0n);
  });
});
