/** What a pending transaction is compared with, all addresses lowercase. */
export interface LaunchWatch {
  /** The chain's V2 router and factory. */
  router: string;
  factory: string;
  /** Tokens with pending intents and no liquidity yet. */
  tokens: ReadonlySet<string>;
}

const ZERO_PADDING = '0'.repeat(24);

/**
 * Whether a pending transaction may give a watched token its first liquidity, decided from the
 * transaction alone (no I/O): it goes to the router, the factory or a watched token (the
 * `openTrading()` pattern, where the token calls the router itself), or its calldata names a
 * watched token as an ABI-encoded address. Only candidates are simulated.
 */
export function isLaunchCandidate(tx: { to: string | null; input: string }, watch: LaunchWatch): boolean {
  if (watch.tokens.size === 0 || tx.to === null) return false;
  const to = tx.to.toLowerCase();
  if (to === watch.router || to === watch.factory || watch.tokens.has(to)) return true;
  return namesWatchedToken(tx.input, watch.tokens);
}

/** True when one of the calldata's 32-byte words (after the selector) is a watched token's address. */
export function namesWatchedToken(input: string, tokens: ReadonlySet<string>): boolean {
  const hex = input.toLowerCase();
  // 0x + 8 hex digits of selector, then 64-digit words.
  for (let at = 10; at + 64 <= hex.length; at += 64) {
    if (hex.startsWith(ZERO_PADDING, at) && tokens.has(`0x${hex.slice(at + 24, at + 64)}`)) return true;
  }
  return false;
}
