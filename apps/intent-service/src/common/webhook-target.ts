import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/** Loopback, private, link-local and unique-local ranges a webhook may not point at. */
export function isPrivateAddress(ip: string): boolean {
  if (isIP(ip) === 4) {
    const [a, b] = ip.split('.').map(Number) as [number, number];
    return a === 10 || a === 127 || a === 0 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127);
  }
  const v6 = ip.toLowerCase();
  if (v6.startsWith('::ffff:')) return isPrivateAddress(v6.slice(7));
  return v6 === '::1' || v6 === '::' || v6.startsWith('fc') || v6.startsWith('fd') || v6.startsWith('fe80');
}

/** A webhook the service refuses to call (scheme or address not allowed). */
export class WebhookRefused extends Error {}

export interface WebhookPolicy {
  WEBHOOK_ALLOW_HTTP: boolean;
  WEBHOOK_ALLOW_PRIVATE: boolean;
}

/** Throws WebhookRefused unless `target` is https (or allowed http) and not a private address. */
export async function checkWebhookTarget(target: URL, policy: WebhookPolicy): Promise<void> {
  if (target.protocol !== 'https:' && !(policy.WEBHOOK_ALLOW_HTTP && target.protocol === 'http:')) {
    throw new WebhookRefused(`refused: ${target.protocol} webhooks are not allowed`);
  }
  if (!policy.WEBHOOK_ALLOW_PRIVATE) {
    const host = target.hostname.replace(/^\[|\]$/g, '');
    const addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
    if (addresses.some(isPrivateAddress)) throw new WebhookRefused(`refused: ${target.hostname} is a private address`);
  }
}
