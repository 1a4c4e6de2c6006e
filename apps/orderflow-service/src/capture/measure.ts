/**
 * What each capture of one block is credited with: the beneficiary's gain in that block (its
 * balance change, its own spending added back) shared among the block's captures, each at most
 * its simulated bid; when the gain falls short of their bids, in proportion to them (rounded
 * down). A gain of 0 or less credits nothing.
 */
export function attribute(gain: bigint, bids: ReadonlyMap<string, bigint>): Map<string, bigint> {
  const total = [...bids.values()].reduce((a, b) => a + b, 0n);
  const out = new Map<string, bigint>();
  for (const [key, bid] of bids) {
    if (gain <= 0n || total === 0n) out.set(key, 0n);
    else if (gain >= total) out.set(key, bid);
    else out.set(key, (gain * bid) / total);
  }
  return out;
}

/** The source's share of `paid` wei, in basis points, rounded down. */
export function shareOf(paid: bigint, bps: number): bigint {
  return (paid * BigInt(bps)) / 10_000n;
}

/** Wei as a decimal amount of a coin with `decimals` decimals (`"0.0123"`), exact. */
export function weiToDecimal(wei: bigint, decimals = 18): string {
  const unit = 10n ** BigInt(decimals);
  const whole = wei / unit;
  const fraction = (wei % unit).toString().padStart(decimals, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole.toString();
}

/** The MEV-capture event id of a target: a UUID made from the chain and the transaction hash, so every replay names the same event. */
export function captureEventId(chainId: number, txHash: string, sha256: (text: string) => string): string {
  const h = sha256(`mev.captured:${chainId}:${txHash.toLowerCase()}`).slice(0, 32).split('');
  h[12] = '8'; // version 8 (RFC 9562: custom)
  h[16] = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16); // RFC 4122 variant
  const s = h.join('');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}
