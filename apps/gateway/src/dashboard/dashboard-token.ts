import { createHmac, timingSafeEqual } from 'node:crypto';

/** What a dashboard token grants: a tenant's intents, or one of its sources (and its intents too). */
export interface DashboardClaims {
  tenantId: string;
  kind: 'intents' | 'source';
  sourceId?: string;
  /** Unix seconds. */
  exp: number;
}

const b64 = (data: Buffer | string) => Buffer.from(data).toString('base64url');
const HEADER = b64(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));

/** A compact JWT (HS256) over the claims. */
export function signDashboardToken(claims: DashboardClaims, secret: string): string {
  const payload: Record<string, unknown> = { tid: claims.tenantId, kind: claims.kind, exp: claims.exp };
  if (claims.sourceId !== undefined) payload.src = claims.sourceId;
  const body = `${HEADER}.${b64(JSON.stringify(payload))}`;
  return `${body}.${b64(createHmac('sha256', secret).update(body).digest())}`;
}

export type TokenCheck = { ok: true; claims: DashboardClaims } | { ok: false; reason: 'malformed' | 'signature' | 'expired' };

/**
 * Checks a token's shape, its signature (constant time) and its expiry; only then are its claims
 * read. The header must be exactly ours: no `alg` other than HS256 is ever considered.
 */
export function verifyDashboardToken(token: string, secret: string, nowSeconds: number): TokenCheck {
  if (token.length > 2048) return { ok: false, reason: 'malformed' };
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== HEADER || !/^[A-Za-z0-9_-]+$/.test(parts[1]!) || !/^[A-Za-z0-9_-]{43}$/.test(parts[2]!)) {
    return { ok: false, reason: 'malformed' };
  }
  const expected = createHmac('sha256', secret).update(`${parts[0]}.${parts[1]}`).digest();
  const given = Buffer.from(parts[2]!, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'signature' };
  let payload: { tid?: unknown; kind?: unknown; src?: unknown; exp?: unknown };
  try {
    payload = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  const { tid, kind, src, exp } = payload;
  if (typeof tid !== 'string' || (kind !== 'intents' && kind !== 'source') || typeof exp !== 'number' || !Number.isSafeInteger(exp)) {
    return { ok: false, reason: 'malformed' };
  }
  if (kind === 'source' && typeof src !== 'string') return { ok: false, reason: 'malformed' };
  if (exp <= nowSeconds) return { ok: false, reason: 'expired' };
  return { ok: true, claims: { tenantId: tid, kind, exp, ...(kind === 'source' ? { sourceId: src as string } : {}) } };
}
