import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IntentEvent, SigningBatchRequest, SigningRequest } from '@tradeinfra/contracts';
import { systemClock } from './backoff.js';
import { WebhookVerificationError } from './errors.js';

/** Headers as Node's `IncomingHttpHeaders`, a fetch `Headers`, or a plain object (any letter case). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** How far the signed timestamp may be from now, either way, in seconds. Default 300 (5 minutes). */
  toleranceSeconds?: number;
  /** The clock, unix ms (for tests). Default: the system clock. */
  now?: () => number;
}

export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 300;

/**
 * What the service POSTs to your webhooks: a notification (an intent event), a signing request,
 * or (intents created with `webhookBatch: true`) a batch of them (`kind: 'signBatch'`).
 */
export type WebhookPayload = IntentEvent | SigningRequest | SigningBatchRequest;

/**
 * Checks that a request to your webhook comes from the service and is fresh (HMAC signature over
 * `"<timestamp>.<body>"` with your tenant's secret, or any of a list; timestamp within
 * `toleranceSeconds`), and returns its parsed body. `body` must be the raw body as received.
 * Throws {@link WebhookVerificationError} otherwise (docs/design/code-notes.md#verify-webhook).
 */
export function verifyWebhook<T extends WebhookPayload = WebhookPayload>(
  secret: string | readonly string[],
  headers: WebhookHeaders,
  body: string | Uint8Array,
  options: VerifyWebhookOptions = {},
): T {
  const secrets = typeof secret === 'string' ? [secret] : [...secret];
  if (secrets.length === 0 || secrets.some((s) => typeof s !== 'string' || s === '')) {
    throw new TypeError('verifyWebhook: secret must be a non-empty string (client.notifications.secret())');
  }
  if (typeof body !== 'string' && !(body instanceof Uint8Array)) {
    throw new TypeError('verifyWebhook: body must be the raw request body (a string or bytes), not a parsed object: the signature covers the exact bytes sent');
  }
  const notification = header(headers, 'x-notification-signature');
  const signing = header(headers, 'x-signing-signature');
  const prefix = notification !== undefined ? 'x-notification' : signing !== undefined ? 'x-signing' : null;
  if (prefix === null) {
    throw new WebhookVerificationError('No signature: the request carries neither x-notification-signature nor x-signing-signature', 'missing_header');
  }
  const signatureHeader = (notification ?? signing)!;
  const timestampHeader = header(headers, `${prefix}-timestamp`);
  if (timestampHeader === undefined) throw new WebhookVerificationError(`No timestamp: ${prefix}-timestamp is missing`, 'missing_header');
  if (!/^\d{1,15}$/.test(timestampHeader.trim())) {
    throw new WebhookVerificationError(`${prefix}-timestamp must be unix seconds, got ${JSON.stringify(timestampHeader.slice(0, 40))}`, 'invalid_timestamp');
  }
  const timestamp = Number(timestampHeader.trim());
  const tolerance = options.toleranceSeconds ?? DEFAULT_WEBHOOK_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((options.now ?? systemClock)() / 1000);
  if (Math.abs(nowSeconds - timestamp) > tolerance) {
    throw new WebhookVerificationError(
      `${prefix}-timestamp ${timestamp} is ${Math.abs(nowSeconds - timestamp)} s from now (${nowSeconds}), beyond the tolerance of ${tolerance} s: a stale or replayed request, or a wrong clock`,
      'timestamp_out_of_tolerance',
    );
  }
  const raw = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  // `v1=<hex>`; several may be listed (comma or space separated): any valid one verifies.
  const candidates = signatureHeader
    .split(/[,\s]+/)
    .filter((part) => part.startsWith('v1='))
    .map((part) => part.slice(3).toLowerCase());
  let valid = false;
  for (const key of secrets) {
    const expected = createHmac('sha256', key).update(`${timestamp}.`).update(raw).digest();
    for (const candidate of candidates) {
      if (!/^[0-9a-f]{64}$/.test(candidate)) continue;
      // Both 32 bytes: timingSafeEqual compares every byte whatever differs.
      if (timingSafeEqual(expected, Buffer.from(candidate, 'hex'))) valid = true;
    }
  }
  if (!valid) {
    throw new WebhookVerificationError(
      candidates.length === 0
        ? `${prefix}-signature holds no v1=<hex> signature`
        : `${prefix}-signature does not match the body: wrong secret (rotated?), or the body was changed or re-serialised before verifying`,
      'invalid_signature',
    );
  }
  try {
    return JSON.parse(raw.toString('utf8')) as T;
  } catch {
    throw new WebhookVerificationError('The signed body is not JSON', 'invalid_body');
  }
}

/**
 * Signs a body as the service does: `v1=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>`. For
 * tests of your own webhook handler.
 */
export function signWebhook(secret: string, timestamp: number, body: string | Uint8Array): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex')}`;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function' && typeof (headers as Headers).has === 'function') {
    return (headers as Headers).get(name) ?? undefined;
  }
  const record = headers as Record<string, string | string[] | undefined>;
  let value = record[name];
  if (value === undefined) {
    const key = Object.keys(record).find((k) => k.toLowerCase() === name);
    value = key === undefined ? undefined : record[key];
  }
  if (Array.isArray(value)) return value.join(',');
  return value;
}
