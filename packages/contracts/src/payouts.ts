import { z } from 'zod';
import { isoDateTime, text, textProblem, typeError } from './validation.js';

export const ENTRY_STATUSES = ['PENDING', 'PAID'] as const;
export type EntryStatus = (typeof ENTRY_STATUSES)[number];
export const PAYOUT_STATUSES = ['PENDING', 'TX_PENDING', 'PAID', 'TX_FAILED'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];
/** Kinds of payout entry. The spec shows only `mev`. */
export const ENTRY_TYPES = ['mev'] as const;
export type EntryType = (typeof ENTRY_TYPES)[number];

export const PAYOUTS_DEFAULT_LIMIT = 100;
export const PAYOUTS_MAX_LIMIT = 500;

const required = typeError;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const uuid = (what = 'a UUID') =>
  z
    .string({ error: required(what) })
    .regex(UUID, { error: `must be ${what}` })
    .transform((v) => v.toLowerCase());

/** A transaction hash: 0x + 64 hex digits, normalised to lowercase. */
export const txHash = () =>
  z
    .string({ error: required('a 0x-prefixed 32-byte hex transaction hash') })
    .regex(/^0x[0-9a-fA-F]{64}$/, { error: 'must be a 0x-prefixed 32-byte hex transaction hash' })
    .transform((v) => v.toLowerCase());

/** Source ids: 1..64 of letters, digits and `_ . : -`. */
export const sourceId = () =>
  z.string({ error: required('a source id') }).regex(/^[A-Za-z0-9_.:-]{1,64}$/, { error: 'must be 1 to 64 letters, digits or _ . : -' });

/** Asset symbols: 1..16 upper-case letters and digits (checked against the configured assets by the service). */
export const assetSymbol = () =>
  z.string({ error: required('an asset symbol') }).regex(/^[A-Z0-9]{1,16}$/, { error: 'must be an asset symbol (1 to 16 upper-case letters or digits)' });

/** A positive decimal amount as a string (`"0.015"`), at most 18 fraction digits; the service checks the asset's own decimals. */
export const decimalAmount = () =>
  z
    .string({ error: required('a decimal amount as a string') })
    .max(80, { error: 'must be a decimal amount as a string', abort: true })
    .regex(/^(0|[1-9][0-9]*)(\.[0-9]{1,18})?$/, {
      error: 'must be a non-negative decimal string (digits, optional . and at most 18 fraction digits)',
      abort: true,
    })
    .refine((v) => /[1-9]/.test(v), { error: 'must be above 0' });

/** The ledger stores chain ids as Postgres `integer`: 1..2^31-1. */
export const LEDGER_CHAIN_ID_MAX = 2 ** 31 - 1;
const CHAIN_ID_MESSAGE = `must be a positive integer chain id from 1 to ${LEDGER_CHAIN_ID_MAX}`;

const chainId = () =>
  z
    .number({ error: required(`a positive integer chain id from 1 to ${LEDGER_CHAIN_ID_MAX}`) })
    .int({ error: CHAIN_ID_MESSAGE })
    .min(1, { error: CHAIN_ID_MESSAGE })
    .max(LEDGER_CHAIN_ID_MAX, { error: CHAIN_ID_MESSAGE });

/**
 * A MEV-capture event, as published on `mev.captured.<chainId>`: one event makes one ledger
 * entry; its `id` is the dedupe key (a republished or redelivered event makes none).
 */
export const MevCaptureEventSchema = z.strictObject({
  id: uuid('an event id (UUID)'),
  chainId: chainId(),
  txHash: txHash(),
  /** The order-flow source credited; null/absent when none. */
  sourceId: sourceId()
    .nullish()
    .transform((v) => v ?? null),
  generatedBySourceId: sourceId()
    .nullish()
    .transform((v) => v ?? null),
  asset: assetSymbol(),
  amount: decimalAmount(),
  type: z.enum(ENTRY_TYPES, { error: `must be one of ${ENTRY_TYPES.join(', ')}` }),
  /** When the MEV was captured, ISO 8601. */
  time: isoDateTime('the capture time'),
});
export type MevCaptureEvent = z.output<typeof MevCaptureEventSchema>;

/** The ledger entry of the spec. `amount` is a JSON number written from the exact decimal. */
export interface PayoutEntry {
  id: string;
  asset: string;
  amount: number;
  sourceId: string;
  chainId: number;
  type: string;
  reference: string;
  generatedBySourceId?: string;
  payoutId: string;
  createdAt: string;
  status: EntryStatus;
}

export interface Payout {
  id: string;
  sourceId: string;
  address: string;
  chainId: number;
  asset: string;
  amount: number;
  status: PayoutStatus;
  txHash: string | null;
  /** Merkle's name of `txHash`. */
  tx_hash: string | null;
}

/** A query-string value: one string; a parameter given twice arrives as an array and is refused. */
const queryValue = (message: string) => z.string({ error: (i) => (Array.isArray(i.input) ? 'must be given once' : message) });

/** A decimal integer query value in 1..max, checked on its digits (a huge one never becomes a number). */
const queryInteger = (what: string, max: number) => {
  const message = `must be ${what} from 1 to ${max}`;
  return queryValue(message)
    .regex(/^[1-9][0-9]{0,15}$/, { error: message, abort: true })
    .transform(Number)
    .refine((n) => n <= max, { error: message });
};

/** Query of `GET /v1/payouts` (all values arrive as strings). */
export const ListEntriesQuerySchema = z.strictObject({
  status: z.enum(ENTRY_STATUSES, { error: (i) => (Array.isArray(i.input) ? 'must be given once' : `must be one of ${ENTRY_STATUSES.join(', ')}`) }).optional(),
  chainId: queryInteger('a positive integer chain id', LEDGER_CHAIN_ID_MAX).optional(),
  sourceId: sourceId().optional(),
  type: z.enum(ENTRY_TYPES, { error: (i) => (Array.isArray(i.input) ? 'must be given once' : `must be one of ${ENTRY_TYPES.join(', ')}`) }).optional(),
  from: isoDateTime('the earliest createdAt').optional(),
  to: isoDateTime('the latest createdAt (exclusive)').optional(),
  limit: queryInteger('an integer', PAYOUTS_MAX_LIMIT).optional(),
  cursor: queryValue('must be the x-next-cursor value of the previous page')
    .max(200, { error: 'must be the x-next-cursor value of the previous page' })
    .refine((v) => textProblem(v) === null, { error: 'must be the x-next-cursor value of the previous page' })
    .optional(),
});
export type ListEntriesQuery = z.output<typeof ListEntriesQuerySchema>;

/**
 * Body of `POST /v1/cashback/source/:id/payout`: `{address, chainId, asset}` pays one (chain,
 * asset) balance; Merkle's `{address, email?}` pays every claimable balance of the source, each
 * as its own payout.
 */
export const RequestPayoutSchema = z
  .strictObject({
    address: z
      .string({ error: required('a 0x-prefixed 20-byte hex address') })
      .regex(/^0x[0-9a-fA-F]{40}$/, { error: 'must be a 0x-prefixed 20-byte hex address' }),
    chainId: chainId().optional(),
    asset: assetSymbol().optional(),
    email: z
      .string({ error: 'must be an email address' })
      .max(254, { error: 'must be at most 254 characters' })
      .regex(/^[^\s@\x00-\x1f]+@[^\s@\x00-\x1f]+\.[^\s@\x00-\x1f]+$/, { error: 'must be an email address' })
      .optional(),
  })
  .superRefine((r, ctx) => {
    if ((r.chainId === undefined) !== (r.asset === undefined)) {
      const missing = r.chainId === undefined ? 'chainId' : 'asset';
      ctx.addIssue({ code: 'custom', path: [missing], message: 'is required with chainId and asset (or send neither to pay every balance)', input: undefined });
    }
  });
export type RequestPayout = z.output<typeof RequestPayoutSchema>;

/** Body of `POST /v1/cashback/payout/:id/status` (admin): the next status of a payout. */
export const PayoutTransitionSchema = z
  .strictObject({
    status: z.enum(['TX_PENDING', 'PAID', 'TX_FAILED'], { error: 'must be TX_PENDING, PAID or TX_FAILED' }),
    txHash: txHash().optional(),
  })
  .superRefine((t, ctx) => {
    if (t.status === 'TX_PENDING' && !t.txHash) {
      ctx.addIssue({ code: 'custom', path: ['txHash'], message: 'is required to move a payout to TX_PENDING', input: undefined });
    }
  });
export type PayoutTransition = z.output<typeof PayoutTransitionSchema>;

/** Body of `POST /v1/sources` (admin): registers a source to a tenant (by the tenant's name). */
export const RegisterSourceSchema = z.strictObject({
  id: sourceId(),
  tenant: text('a tenant name', 200),
});

// ---- NATS messages (gateway → payout service) ----

/** Who asks: a tenant, or an operator (`admin` scope) who sees everything. */
export interface PayoutViewer {
  tenantId: string;
  admin: boolean;
  /** The API key that asks (operators' actions on other tenants' sources are audited with it). */
  keyId?: string;
}
export interface PayoutMessage<T = unknown> {
  viewer: PayoutViewer;
  body: T;
}
export interface RawJsonReply {
  /** JSON text rendered by the database, passed through to the client. */
  json: string;
  nextCursor?: string | null;
}
