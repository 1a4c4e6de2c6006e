import { AbiCoder } from 'ethers';

/**
 * The buy as one transaction from the user's wallet, needing no contract of ours and no custody:
 * a contract creation whose init code (firstOrFail check, router swap to the wallet, fee, bribe to
 * the builder by selfdestruct) succeeds whole or reverts whole. Value: `buyAmount + bribe`.
 * docs/design/buy-init-code.md tells each step.
 */
export interface BuyPlan {
  router: string;
  wrappedNative: string;
  token: string;
  wallet: string;
  swapValue: bigint;
  amountOutMin: bigint;
  /** Unix seconds: the router reverts in any later block. */
  deadline: bigint;
  fee: bigint;
  feeRecipient: string | null;
  bribe: bigint;
  /** Only this block may include the buy (firstOrFail), or null. */
  onlyInBlock: bigint | null;
  /**
   * Only the block that gives this pair its first liquidity may include the buy (firstOrFail behind
   * a pending launch), or null: read from the pair's cumulative prices and last update
   * (docs/design/buy-init-code.md); the wallet executor checks the same.
   */
  onlyInLaunchBlockOf: string | null;
}

/** swapExactETHForTokensSupportingFeeOnTransferTokens(uint256,address[],address,uint256) */
export const SWAP_ETH_FOR_TOKENS = '0xb6f9de95';
/** swapExactTokensForTokensSupportingFeeOnTransferTokens(uint256,uint256,address[],address,uint256) */
export const SWAP_TOKENS_FOR_TOKENS = '0x5c11d795';
export const BALANCE_OF = '0x70a08231';
export const APPROVE = '0x095ea7b3';

const coder = AbiCoder.defaultAbiCoder();

/** ABI words by hand: this runs once per intent on the path to submission (ethers' coder is ~10× slower). */
const uintWord = (n: bigint) => hex(n, 32);
const addressWord = (a: string) => addr(a).padStart(64, '0');

export function routerBuyCalldata(plan: Pick<BuyPlan, 'amountOutMin' | 'wrappedNative' | 'token' | 'wallet' | 'deadline'>): string {
  // (uint256 amountOutMin, address[] path, address to, uint256 deadline); path is at offset 0x80
  return (
    SWAP_ETH_FOR_TOKENS +
    uintWord(plan.amountOutMin) +
    uintWord(0x80n) +
    addressWord(plan.wallet) +
    uintWord(plan.deadline) +
    uintWord(2n) +
    addressWord(plan.wrappedNative) +
    addressWord(plan.token)
  );
}

/** The router's sale of `amountIn` to the wrapped native token (reverting when it gives less than `amountOutMin`). */
export function routerSellCalldata(amountIn: bigint, token: string, wrappedNative: string, to: string, deadline: bigint, amountOutMin = 0n): string {
  return (
    SWAP_TOKENS_FOR_TOKENS +
    coder.encode(['uint256', 'uint256', 'address[]', 'address', 'uint256'], [amountIn, amountOutMin, [token, wrappedNative], to, deadline]).slice(2)
  );
}

export const balanceOfCalldata = (holder: string) => BALANCE_OF + coder.encode(['address'], [holder]).slice(2);
export const approveCalldata = (spender: string, amount: bigint) => APPROVE + coder.encode(['address', 'uint256'], [spender, amount]).slice(2);

const hex = (n: bigint, bytes: number) => {
  const s = n.toString(16);
  if (s.length > bytes * 2) throw new RangeError(`${n} does not fit in ${bytes} bytes`);
  return s.padStart(bytes * 2, '0');
};
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
/** 20 address bytes as hex (the caller's addresses were validated, and checksummed, at the edge). */
const addr = (a: string) => {
  if (!ADDRESS.test(a)) throw new Error(`not an address: ${a}`);
  return a.slice(2).toLowerCase();
};

/** Opcodes used below. */
const OP = {
  PUSH1: '60',
  PUSH2: '61',
  PUSH8: '67',
  PUSH4: '63',
  PUSH20: '73',
  PUSH32: '7f',
  CODECOPY: '39',
  CALL: 'f1',
  GAS: '5a',
  ISZERO: '15',
  JUMPI: '57',
  JUMPDEST: '5b',
  EQ: '14',
  NUMBER: '43',
  RETURNDATASIZE: '3d',
  RETURNDATACOPY: '3e',
  REVERT: 'fd',
  COINBASE: '41',
  SELFDESTRUCT: 'ff',
  STATICCALL: 'fa',
  TIMESTAMP: '42',
  AND: '16',
  SHL: '1b',
  MLOAD: '51',
  MSTORE: '52',
  DUP1: '80',
} as const;

/** getReserves(), price0CumulativeLast(), price1CumulativeLast() */
const GET_RESERVES = '0902f1ac';
const PRICE0_CUMULATIVE_LAST = '5909c0d5';
const PRICE1_CUMULATIVE_LAST = '5a3d5493';

/** The init code of the buy (see BuyPlan). Deterministic: the same plan gives the same bytes. */
export function buyInitCode(plan: BuyPlan): string {
  if (plan.fee > 0n && !plan.feeRecipient) throw new Error('a fee needs a fee recipient');
  const calldata = routerBuyCalldata(plan).slice(2);
  const length = calldata.length / 2;
  const jumpIfFailed = (failAt: number) => OP.ISZERO + OP.PUSH2 + hex(BigInt(failAt), 2) + OP.JUMPI;
  const jumpIf = (to: number) => OP.PUSH2 + hex(BigInt(to), 2) + OP.JUMPI;
  /** memory[0..outSize) = pair.<selector>() (memory[0..32) holds the selector first); reverts (plain) if the call fails. */
  const pairView = (pair: string, selector: string, outSize: number, plainAt: number) =>
    [
      ...[OP.PUSH4 + selector, OP.PUSH1 + 'e0', OP.SHL, OP.PUSH1 + '00', OP.MSTORE],
      // staticcall(gas, pair, 0, 4, 0, outSize)
      ...[OP.PUSH1 + hex(BigInt(outSize), 1), OP.PUSH1 + '00', OP.PUSH1 + '04', OP.PUSH1 + '00', OP.PUSH20 + addr(pair), OP.GAS, OP.STATICCALL],
      jumpIfFailed(plainAt),
    ].join('');
  const build = (failAt: number, plainAt: number, codeAt: number): string => {
    let code = '';
    if (plan.onlyInBlock !== null) {
      code += OP.PUSH8 + hex(plan.onlyInBlock, 8) + OP.NUMBER + OP.EQ + jumpIfFailed(failAt);
    }
    if (plan.onlyInLaunchBlockOf) {
      const pair = plan.onlyInLaunchBlockOf;
      // blockTimestampLast (the third word of getReserves; 0 from a pair with no code) == uint32(block.timestamp)
      code += pairView(pair, GET_RESERVES, 0x60, plainAt);
      code += OP.PUSH1 + '40' + OP.MLOAD + OP.PUSH4 + 'ffffffff' + OP.TIMESTAMP + OP.AND + OP.EQ + jumpIfFailed(plainAt);
      // both cumulative prices still 0 (a pair with no code leaves the selector, not 0)
      for (const selector of [PRICE0_CUMULATIVE_LAST, PRICE1_CUMULATIVE_LAST]) {
        code += pairView(pair, selector, 0x20, plainAt) + OP.PUSH1 + '00' + OP.MLOAD + jumpIf(plainAt);
      }
    }
    // memory[0..length) = router calldata, copied from the end of this code
    code += OP.PUSH2 + hex(BigInt(length), 2) + OP.PUSH2 + hex(BigInt(codeAt), 2) + OP.PUSH1 + '00' + OP.CODECOPY;
    // call(gas, router, swapValue, 0, length, 0, 0)
    code += OP.PUSH1 + '00' + OP.PUSH1 + '00' + OP.PUSH2 + hex(BigInt(length), 2) + OP.PUSH1 + '00';
    code += OP.PUSH32 + hex(plan.swapValue, 32) + OP.PUSH20 + addr(plan.router) + OP.GAS + OP.CALL + jumpIfFailed(failAt);
    if (plan.fee > 0n) {
      code += OP.PUSH1 + '00' + OP.PUSH1 + '00' + OP.PUSH1 + '00' + OP.PUSH1 + '00';
      code += OP.PUSH32 + hex(plan.fee, 32) + OP.PUSH20 + addr(plan.feeRecipient!) + OP.GAS + OP.CALL + jumpIfFailed(failAt);
    }
    code += OP.COINBASE + OP.SELFDESTRUCT;
    return code;
  };
  // Two passes: the first finds where the failure handlers and the calldata land.
  const body = build(0, 0, 0);
  const failAt = body.length / 2;
  // The last call's revert data (the router's reason), or none.
  const failure = OP.JUMPDEST + OP.RETURNDATASIZE + OP.PUSH1 + '00' + OP.PUSH1 + '00' + OP.RETURNDATACOPY + OP.RETURNDATASIZE + OP.PUSH1 + '00' + OP.REVERT;
  // A check of the pair failed: no data (what its views returned is no reason).
  const plainAt = failAt + failure.length / 2;
  const plain = OP.JUMPDEST + OP.PUSH1 + '00' + OP.DUP1 + OP.REVERT;
  const codeAt = plainAt + plain.length / 2;
  return `0x${build(failAt, plainAt, codeAt)}${failure}${plain}${calldata}`;
}
