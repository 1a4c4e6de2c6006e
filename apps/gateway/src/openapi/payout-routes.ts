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
import * as ex from './examples.js';
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
    responses: { 200: { description: 'Entries', schema: z.array(PayoutEntrySchema), example: [ex.PAYOUT_ENTRY] } },
    errors: COMMON_ERRORS,
    errorExample: { status: 400, body: ex.validationError('hash', 'must be a 0x-prefixed 32-byte hex transaction hash') },
  },
  {
    method: 'get',
    path: '/v1/payouts',
    summary: 'List payout entries, newest first',
    description:
      'Filters: status, chainId, sourceId, type, from/to (createdAt, ISO 8601; to exclusive), limit (1..500, default 100), cursor (from x-next-cursor).',
    scope: 'payouts:read',
    query: ListEntriesQuerySchema,
    responses: { 200: { description: 'A page of entries', schema: z.array(PayoutEntrySchema), headers: nextCursor, example: [ex.PAYOUT_ENTRY] } },
    errors: COMMON_ERRORS,
    errorExample: { status: 400, body: ex.validationError('query.limit', 'must be an integer from 1 to 500') },
  },
  {
    method: 'post',
    path: '/v1/payouts/entries',
    summary: 'Record an entry by hand (operators)',
    description: 'The body is a MEV-capture event; its id makes the record idempotent (201 created, 200 already recorded).',
    scope: 'admin',
    body: { schema: MevCaptureEventSchema, example: ex.MEV_CAPTURE },
    responses: {
      201: { description: 'The entry, recorded now', schema: PayoutEntrySchema, example: ex.PAYOUT_ENTRY },
      200: { description: 'The entry, recorded by an earlier request with the same event id', schema: PayoutEntrySchema, example: ex.PAYOUT_ENTRY },
    },
    errors: BODY_ERRORS,
    errorExample: {
      status: 400,
      body: ex.validationError('amount', 'must be a non-negative decimal string (digits, optional . and at most 18 fraction digits)'),
    },
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
    responses: { 200: { description: 'Cashback', schema: CashbackSchema, example: ex.CASHBACK } },
    errors: [...COMMON_ERRORS, 404],
    errorExample: { status: 404, body: ex.NOT_FOUND('Source', 'wallet-app-9') },
  },
  {
    method: 'get',
    path: '/v1/cashback/source/{id}/payouts',
    summary: "A source's latest payouts",
    description: "The latest 100, newest first. Another tenant's source is 404.",
    scope: 'payouts:read',
    dashboard: 'source',
    params: sourceParam,
    responses: {
      200: { description: 'Payouts', schema: z.array(PayoutSchema), example: [ex.payout({ status: 'PAID', txHash: ex.PAYOUT_TX, tx_hash: ex.PAYOUT_TX })] },
    },
    errors: [...COMMON_ERRORS, 404],
    errorExample: { status: 404, body: ex.NOT_FOUND('Source', 'wallet-app-9') },
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
    body: { schema: RequestPayoutSchema, example: { address: ex.PAYOUT_ADDRESS, chainId: 1, asset: 'ETH' } },
    responses: { 201: { description: 'The payout; with `{address, email?}`, `{id, payouts}`', schema: PayoutRequestReplySchema, example: ex.payout() } },
    errors: [...BODY_ERRORS, 404, 409],
    errorExample: { status: 409, body: ex.NOTHING_TO_PAY },
  },
  {
    method: 'get',
    path: '/v1/cashback/payout/{id}',
    summary: 'A payout',
    scope: 'payouts:read',
    params: payoutParam,
    responses: { 200: { description: 'The payout', schema: PayoutSchema, example: ex.payout() } },
    errors: [...COMMON_ERRORS, 404],
    errorExample: { status: 404, body: ex.NOT_FOUND('Payout', '019ab6a0-0000-7000-8000-0000000000ff') },
  },
  {
    method: 'post',
    path: '/v1/cashback/payout/{id}/status',
    summary: 'Settle a payout (operators)',
    description:
      'PENDING → TX_PENDING (txHash required) → PAID (its entries become PAID with payoutId set); TX_PENDING → TX_FAILED (its entries are released). PAID never changes; anything else is 409.',
    scope: 'admin',
    params: payoutParam,
    body: { schema: PayoutTransitionSchema, example: { status: 'TX_PENDING', txHash: ex.PAYOUT_TX } },
    responses: {
      200: { description: 'The payout', schema: PayoutSchema, example: ex.payout({ status: 'TX_PENDING', txHash: ex.PAYOUT_TX, tx_hash: ex.PAYOUT_TX }) },
    },
    errors: [...BODY_ERRORS, 404, 409],
    errorExample: { status: 400, body: ex.validationError('txHash', 'is required to move a payout to TX_PENDING') },
  },
  {
    method: 'post',
    path: '/v1/sources',
    summary: 'Register a source to a tenant (operators)',
    description: 'Body {id, tenant: tenant name}; an unknown tenant is 404. Entries recorded before registration become visible to the tenant.',
    scope: 'admin',
    body: { schema: RegisterSourceSchema, example: ex.REGISTERED_SOURCE },
    responses: { 201: { description: 'Registered', schema: RegisteredSourceSchema, example: ex.REGISTERED_SOURCE } },
    errors: [...BODY_ERRORS, 404, 409],
    errorExample: {
      status: 404,
      body: { error: true, name: 'NotFound', message: 'Tenant acme not found', details: [{ path: 'tenant', message: 'no such tenant' }] },
    },
  },
  {
    method: 'get',
    path: '/v1/source/{id}/dashboard-url',
    summary: 'A signed URL of the customer dashboard of a source (Merkle’s)',
    description:
      "`{url, expiresAt}` as GET /v1/dashboard-url; the token also grants this source's cashback, payouts and payout requests. Another tenant's source is 404.",
    scope: 'payouts:read',
    params: sourceParam,
    responses: { 200: { description: 'The URL', schema: DashboardUrlSchema, headers: noStore, example: ex.DASHBOARD_URL } },
    errors: [...COMMON_ERRORS, 404],
    errorExample: { status: 404, body: ex.NOT_FOUND('Source', 'wallet-app-9') },
  },
];
