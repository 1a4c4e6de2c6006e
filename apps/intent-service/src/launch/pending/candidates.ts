/** What a pending transaction is compared with, all addresses lowercase. */
export interface LaunchWatch {
  /** The chain's V2 router and factory. */
  router: string;
  factory: string;
  /** Tokens with pending intents and no liquidity yet. */
  tokens: ReadonlySet<string>;
}

const ZERO_PADDING = '0'.repeat(24);
/** Up to this many watched tokens, calldata is also searched for them anywhere (calls nested in a multicall). */
const SCAN_ANYWHERE_UP_TO = 64;

/**
 * Whether a pending transaction may give a watched token its first liquidity, from the
 * transaction alone: it goes to a watched token, or its calldata names one. Only candidates are
 * simulated (docs/design/pending-launch-path.md).
 */
export function isLaunchCandidate(tx: { to: string | null; input: string }, watch: LaunchWatch): boolean {
  if (watch.tokens.size === 0 || tx.to === null) return false;
  return watch.tokens.has(tx.to.toLowerCase()) || namesWatchedToken(tx.input, watch.tokens);
}

/**
 * True when the calldata names a watched token: as one of its 32-byte ABI words after the
 * selector, or, while few tokens are watched, anywhere in it (a call nested in a multicall sits
 * 4 bytes off the outer words).
 */
export function namesWatchedToken(input: string, tokens: ReadonlySet<string>): boolean {
  const hex = input.toLowerCase();
  // 0x + 8 hex digits of selector, then 64-digit words.
  for (let at = 10; at + 64 <= hex.length; at += 64) {
    if (hex.startsWith(ZERO_PADDING, at) && tokens.has(`0x${hex.slice(at + 24, at + 64)}`)) return true;
  }
  if (tokens.size > SCAN_ANYWHERE_UP_TO) return false;
  for (const token of tokens) if (hex.includes(`${ZERO_PADDING}${token.slice(2)}`)) return true;
  return false;
}

/** `addLiquidityETH(address,uint256,uint256,uint256,address,uint256)` and `addLiquidity(address,address,uint256,uint256,uint256,uint256,address,uint256)`. */
const ADD_LIQUIDITY_ETH = '0xf305d719';
const ADD_LIQUIDITY = '0xe8e33700';

/**
 * What a call to the router adds to a token's pool with the wrapped native token, read from its
 * calldata (lowercase token): `addLiquidityETH` (the token's desired amount and the value sent)
 * or `addLiquidity` with the wrapped native token on one side (both desired amounts). Into a
 * pool with no liquidity, these are the reserves it leaves (unless the token takes a fee on the
 * way in). Null for anything else, or an amount of 0.
 */
export function addedLiquidity(
  tx: { to: string | null; input: string; value: string },
  router: string,
  wrappedNative: string,
): { token: string; tokenAmount: bigint; nativeAmount: bigint } | null {
  if (tx.to?.toLowerCase() !== router.toLowerCase()) return null;
  const input = tx.input.toLowerCase();
  const word = (i: number) => input.slice(10 + 64 * i, 74 + 64 * i);
  const address = (i: number) => `0x${word(i).slice(24)}`;
  const weth = wrappedNative.toLowerCase();
  let added: { token: string; tokenAmount: bigint; nativeAmount: bigint };
  if (input.startsWith(ADD_LIQUIDITY_ETH) && input.length >= 10 + 64 * 6) {
    added = { token: address(0), tokenAmount: BigInt(`0x${word(1)}`), nativeAmount: BigInt(tx.value) };
  } else if (input.startsWith(ADD_LIQUIDITY) && input.length >= 10 + 64 * 8 && (address(0) === weth) !== (address(1) === weth)) {
    const nativeFirst = address(0) === weth;
    added = {
      token: address(nativeFirst ? 1 : 0),
      tokenAmount: BigInt(`0x${word(nativeFirst ? 3 : 2)}`),
      nativeAmount: BigInt(`0x${word(nativeFirst ? 2 : 3)}`),
    };
  } else return null;
  return added.tokenAmount > 0n && added.nativeAmount > 0n ? added : null;
}
