import { createHmac } from 'node:crypto';
import { WebhookVerificationError } from './errors.js';
import { signWebhook, verifyWebhook } from './webhook.js';

const secret = 'a3f1c0de'.repeat(8);
const now = 1_800_000_000_000;
const ts = now / 1000;
const body = JSON.stringify({
  id: 'ev1',
  type: 'created',
  occurredAt: '2027-01-15T08:00:00.000Z',
  tenantId: 't',
  intent: { id: 'i1', buyAmount: '1000000000000000000' },
});
/** Computed independently of the code under test. */
const hmac = (key: string, t: number, b: string) => `v1=${createHmac('sha256', key).update(`${t}.${b}`).digest('hex')}`;

function reason(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof WebhookVerificationError) return err.reason;
    throw err;
  }
  throw new Error('did not throw');
}

describe('verifyWebhook', () => {
  it('returns the parsed body of a notification signed with the secret (Node headers, fetch Headers, bytes)', () => {
    const headers = { 'x-notification-id': 'ev1', 'x-notification-timestamp': String(ts), 'x-notification-signature': hmac(secret, ts, body) };
    expect(verifyWebhook(secret, headers, body, { now: () => now })).toEqual(JSON.parse(body));
    expect(verifyWebhook(secret, new Headers(headers), Buffer.from(body), { now: () => now })).toEqual(JSON.parse(body));
    const upper = { 'X-Notification-Timestamp': String(ts), 'X-Notification-Signature': hmac(secret, ts, body) };
    expect(verifyWebhook(secret, upper, new TextEncoder().encode(body), { now: () => now })).toMatchObject({ id: 'ev1' });
  });

  it('verifies signing requests (x-signing-*) the same way', () => {
    const request = JSON.stringify({ kind: 'sign', id: 'r1', transactions: [] });
    const headers = { 'x-signing-request-id': 'r1', 'x-signing-timestamp': String(ts), 'x-signing-signature': hmac(secret, ts, request) };
    expect(verifyWebhook(secret, headers, request, { now: () => now })).toEqual({ kind: 'sign', id: 'r1', transactions: [] });
  });

  it('refuses a changed body, another secret, a signature for another timestamp, or garbage', () => {
    const good = { 'x-notification-timestamp': String(ts), 'x-notification-signature': hmac(secret, ts, body) };
    expect(reason(() => verifyWebhook(secret, good, body.replace('1000000000000000000', '2000000000000000000'), { now: () => now }))).toBe('invalid_signature');
    expect(reason(() => verifyWebhook('other-secret', good, body, { now: () => now }))).toBe('invalid_signature');
    const shifted = { ...good, 'x-notification-timestamp': String(ts + 1) };
    expect(reason(() => verifyWebhook(secret, shifted, body, { now: () => now }))).toBe('invalid_signature');
    for (const signature of ['', 'v1=', 'v1=zz', 'v0=' + hmac(secret, ts, body).slice(3), hmac(secret, ts, body).slice(0, -2)]) {
      expect(reason(() => verifyWebhook(secret, { ...good, 'x-notification-signature': signature }, body, { now: () => now }))).toBe('invalid_signature');
    }
    // Re-serialised JSON (another key order) is not the body that was signed.
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(body) as object).reverse()));
    expect(reason(() => verifyWebhook(secret, good, reordered, { now: () => now }))).toBe('invalid_signature');
  });

  it('accepts any of several secrets and any of several listed signatures (rotation)', () => {
    const headers = { 'x-notification-timestamp': String(ts), 'x-notification-signature': `v1=${'0'.repeat(64)}, ${hmac(secret, ts, body)}` };
    expect(verifyWebhook(['old-secret', secret], headers, body, { now: () => now })).toMatchObject({ id: 'ev1' });
  });

  it('refuses a timestamp beyond the tolerance either way (default 5 minutes)', () => {
    const at = (t: number) => ({ 'x-notification-timestamp': String(t), 'x-notification-signature': hmac(secret, t, body) });
    expect(verifyWebhook(secret, at(ts - 300), body, { now: () => now })).toBeTruthy();
    expect(reason(() => verifyWebhook(secret, at(ts - 301), body, { now: () => now }))).toBe('timestamp_out_of_tolerance');
    expect(reason(() => verifyWebhook(secret, at(ts + 301), body, { now: () => now }))).toBe('timestamp_out_of_tolerance');
    expect(verifyWebhook(secret, at(ts - 3600), body, { now: () => now, toleranceSeconds: 3600 })).toBeTruthy();
    expect(reason(() => verifyWebhook(secret, at(ts - 31), body, { now: () => now, toleranceSeconds: 30 }))).toBe('timestamp_out_of_tolerance');
  });

  it('names what is missing or malformed', () => {
    expect(reason(() => verifyWebhook(secret, {}, body))).toBe('missing_header');
    expect(reason(() => verifyWebhook(secret, { 'x-notification-signature': hmac(secret, ts, body) }, body))).toBe('missing_header');
    expect(reason(() => verifyWebhook(secret, { 'x-notification-timestamp': '1.5e9', 'x-notification-signature': 'v1=00' }, body))).toBe('invalid_timestamp');
    const notJson = 'hello';
    expect(
      reason(() =>
        verifyWebhook(secret, { 'x-notification-timestamp': String(ts), 'x-notification-signature': hmac(secret, ts, notJson) }, notJson, { now: () => now }),
      ),
    ).toBe('invalid_body');
    expect(() => verifyWebhook(secret, {}, JSON.parse(body) as never)).toThrow(/raw request body/);
    expect(() => verifyWebhook('', {}, body)).toThrow(/secret/);
  });

  it('signWebhook signs as the service does', () => {
    expect(signWebhook(secret, ts, body)).toBe(hmac(secret, ts, body));
  });
});
