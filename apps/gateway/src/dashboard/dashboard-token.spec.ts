import { signDashboardToken, verifyDashboardToken } from './dashboard-token.js';

const SECRET = 'a'.repeat(64);
const NOW = 1_800_000_000;
const tenantId = '0190f3a2-7b1c-7def-8abc-0123456789ab';

describe('dashboard tokens', () => {
  it('round-trips the claims of an intents token and a source token', () => {
    expect(verifyDashboardToken(signDashboardToken({ tenantId, kind: 'intents', exp: NOW + 60 }, SECRET), SECRET, NOW)).toEqual({
      ok: true,
      claims: { tenantId, kind: 'intents', exp: NOW + 60 },
    });
    expect(verifyDashboardToken(signDashboardToken({ tenantId, kind: 'source', sourceId: 'wallet-app', exp: NOW + 60 }, SECRET), SECRET, NOW)).toEqual({
      ok: true,
      claims: { tenantId, kind: 'source', sourceId: 'wallet-app', exp: NOW + 60 },
    });
  });

  it('is a standard HS256 JWT', () => {
    const [header, payload] = signDashboardToken({ tenantId, kind: 'intents', exp: NOW }, SECRET).split('.');
    expect(JSON.parse(Buffer.from(header!, 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(JSON.parse(Buffer.from(payload!, 'base64url').toString())).toEqual({ tid: tenantId, kind: 'intents', exp: NOW });
  });

  it('refuses an expired token, another key, a changed payload or header, and garbage', () => {
    const token = signDashboardToken({ tenantId, kind: 'intents', exp: NOW + 60 }, SECRET);
    const [h, p, s] = token.split('.') as [string, string, string];
    expect(verifyDashboardToken(token, SECRET, NOW + 60)).toEqual({ ok: false, reason: 'expired' });
    expect(verifyDashboardToken(token, 'b'.repeat(64), NOW)).toEqual({ ok: false, reason: 'signature' });
    const other = Buffer.from(JSON.stringify({ tid: tenantId, kind: 'source', src: 'x', exp: NOW + 60 })).toString('base64url');
    expect(verifyDashboardToken(`${h}.${other}.${s}`, SECRET, NOW)).toEqual({ ok: false, reason: 'signature' });
    const none = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    expect(verifyDashboardToken(`${none}.${p}.${s}`, SECRET, NOW)).toEqual({ ok: false, reason: 'malformed' });
    expect(verifyDashboardToken(`${none}.${p}.`, SECRET, NOW)).toEqual({ ok: false, reason: 'malformed' });
    for (const bad of ['', 'a.b', 'a.b.c.d', `${h}.${p}`, `${h}.${p}.${s}x`, 'x'.repeat(3000)]) {
      expect(verifyDashboardToken(bad, SECRET, NOW).ok).toBe(false);
    }
  });

  it('refuses a well-signed token without the claims it needs', () => {
    // A source token must name its source.
    const missing = signDashboardToken({ tenantId, kind: 'source', exp: NOW + 60 }, SECRET);
    expect(verifyDashboardToken(missing, SECRET, NOW)).toEqual({ ok: false, reason: 'malformed' });
  });
});
