import {
  CashbackSchema,
  DashboardUrlSchema,
  ListEntriesQuerySchema,
  MevCaptureEventSchema,
  PayoutEntrySchema,
  PayoutRequestReplySchema,
  PayoutSchema,
  PayoutTransitionSchema,
  RegisteredSourceSchema,
  RegisterSourceSchema,
  RequestPayoutSchema,
  sourceId,
  txHash,
  uuid,
} from '@tradeinfra/contracts';
import { z } from 'zod';
import { BODY_ERRORS, COMMON_ERRORS, type RouteSpec } from './route-table.js';

const sourceParam = { id: sourceId() };
const payoutParam = { id: uuid('a payout id') };
const nextCursor = { 'x-next-cursor': { description: 'Present when there is a next page', schema: z.string() } };
const noStore = { 'cache-control': { description: 'Never cached', schema: z.literal('no-store') } };

export const PAYOUT_ROUTES: RouteSpec[] = [
  {
    method: 'get',
    path: '/v1/payouts/tx/{hash}',
    summary: 'Payout entries one transaction generated',
    description: 'An array, possibly empty; only entries of your sources (admin: all).',
    scope: 'payouts:read',
    params: { hash: txHash() },
    responses: { 200: { description: 'Entries', schema: z.array(PayoutEntrySchema) } },
    errors: COMMON_ERRORS,
  },
  {
    method: 'get',
    path: '/v1/payouts',
    summary: 'List payout entries, newest first',
    description:
      'Filters: status, chainId, sourceId, type, from/to (createdAt, ISO 8601; to exclusive), limit (1..500, default 100), cursor (from x-next-cursor).',
    scope: 'payouts:read',
    query: ListEntriesQuerySchema,
    responses: { 200: { description: 'A page of entries', schema: z.array(PayoutEntrySchema), headers: nextCursor } },
    errors: COMMON_ERRORS,
  },
  {
    method: 'post',
    path: '/v1/payouts/entries',
    summary: 'Record an entry by hand (operators)',
    description: 'The body is a MEV-capture event; its id makes the record idempotent (201 created, 200 already recorded).',
    scope: 'admin',
    body: { schema: MevCaptureEventSchema },
    responses: {
      201: { description: 'The entry, recorded now', schema: PayoutEntrySchema },
      200: { description: 'The entry, recorded by an earlier request with the same event id', schema: PayoutEntrySchema },
    },
    errors: BODY_ERRORS,
  },
  {
    method: 'get',
    path: '/v1/cashback/source/{id}',
    summary: "A source's cashback",
    description:
      "Balances per (chainId, asset): amount (= claimable, Merkle’s field), pending (incl. claimed by payouts in progress), claimable, paid; entry count; latest entry time; estimatedUsd and unpricedAssets. Another tenant's source is 404.",
    scope: 'payouts:read',
    dashboard: 'source',
    params: sourceParam,
    responses: { 200: { description: 'Cashback', schema: CashbackSchema } },
    errors: [...COMMON_ERRORS, 404],
  },
  {
    method: 'get',
    path: '/v1/cashback/source/{id}/payouts',
    summary: "A source's latest payouts",
    description: "The latest 100, newest first. Another tenant's source is 404.",
    scope: 'payouts:read',
    dashboard: 'source',
    params: sourceParam,
    responses: { 200: { description: 'Payouts', schema: z.array(PayoutSchema) } },
    errors: [...COMMON_ERRORS, 404],
  },
  {
    method: 'post',
    path: '/v1/cashback/source/{id}/payout',
    summary: 'Request a payout',
    description:
      '`{address, chainId, asset}` claims every unclaimed PENDING entry of the source on that chain and asset into a new payout (status PENDING), atomically: concurrent requests never claim one entry twice; the answer is the payout. ' +
      'Merkle’s `{address, email?}` does so for every claimable (chainId, asset) balance, each its own payout in kind, and answers `{id (the first payout’s), payouts: [...]}`. Nothing to claim or a total below the minimum is 409 (details.reason). ' +
      'An admin key paying out a source of another tenant (or an unregistered one) is recorded in the audit log (key, tenant, source, address, amount, time).',
    scope: 'payouts:write',
    dashboard: 'source',
    params: sourceParam,
    body: { schema: RequestPayoutSchema },
    responses: { 201: { description: 'The payout; with `{address, email?}`, `{id, payouts}`', schema: PayoutRequestReplySchema } },
    errors: [...BODY_ERRORS, 404, 409],
  },
  {
    method: 'get',
    path: '/v1/cashback/payout/{id}',
    summary: 'A payout',
    scope: 'payouts:read',
    params: payoutParam,
    responses: { 200: { description: 'The payout', schema: PayoutSchema } },
    errors: [...COMMON_ERRORS, 404],
  },
  {
    method: 'post',
    path: '/v1/cashback/payout/{id}/status',
    summary: 'Settle a payout (operators)',
    description:
      'PENDING → TX_PENDING (txHash required) → PAID (its entries become PAID with payoutId set); TX_PENDING → TX_FAILED (its entries are released). PAID never changes; anything else is 409.',
    scope: 'admin',
    params: payoutParam,
    body: { schema: PayoutTransitionSchema },
    responses: { 200: { description: 'The payout', schema: PayoutSchema } },
    errors: [...BODY_ERRORS, 404, 409],
  },
  {
    method: 'post',
    path: '/v1/sources',
    summary: 'Register a source to a tenant (operators)',
    description: 'Body {id, tenant: tenant name}; an unknown tenant is 404. Entries recorded before registration become visible to the tenant.',
    scope: 'admin',
    body: { schema: RegisterSourceSchema },
    responses: { 201: { description: 'Registered', schema: RegisteredSourceSchema } },
    errors: [...BODY_ERRORS, 404, 409],
  },
  {
    method: 'get',
    path: '/v1/source/{id}/dashboard-url',
    summary: 'A signed URL of the customer dashboard of a source (Merkle’s)',
    description:
      "`{url, expiresAt}` as GET /v1/dashboard-url; the token also grants this source's cashback, payouts and payout requests. Another tenant's source is 404.",
    scope: 'payouts:read',
    params: sourceParam,
    responses: { 200: { description: 'The URL', schema: DashboardUrlSchema, headers: noStore } },
    errors: [...COMMON_ERRORS, 404],
  },
];
