import { createExitRequestSchema, IntentRecordSchema } from '@tradeinfra/contracts';
import { z } from 'zod';
import * as ex from './examples.js';
import { BODY_ERRORS, type RouteSpec } from './route-table.js';

/** The request schema `POST /v1/exit` validates with, named in the document's components. */
export const CreateExitSchema = createExitRequestSchema();

export const EXIT_ROUTES: RouteSpec[] = [
  {
    method: 'post',
    path: '/v1/exit',
    summary: 'Create an exit (take-profit, stop-loss, trailing stop, anti-rug)',
    description:
      'A sell of `amount` (token units, or "all": the balance when it fires) of `tokenAddress` from `wallet`, fired by the first trigger that holds: ' +
      '`takeProfit` (a multiple of the entry price), `stopLoss` (a fraction of it), `trailingStop` (a fraction below the highest price seen since creation), `onRug` (a pending transaction that would remove liquidity, raise the sell tax or stop trading). ' +
      'The price is the executable sell price of the amount after the token’s sell tax, measured at every new block. The entry price is `entryPrice` (wei per whole token) or measured from the receipt of the completed buy `followsIntentId`. ' +
      'The sell is signed by `webhookUrl` (the buys’ protocol) and sent at most once; a sell that would revert (honeypot) or give less than `minOut` is not sent and the exit waits. ' +
      'Read, searched and cancelled through the intent routes (kind `exit`); same statuses and notifications, whose `data` carries `trigger` and `price`. See docs/api/exits.md. Idempotency as POST /v1/intent.',
    scope: 'intents:write',
    idempotencyKey: true,
    body: { schema: CreateExitSchema, example: ex.CREATE_EXIT },
    responses: {
      201: {
        description: 'The exit (kind: exit)',
        schema: IntentRecordSchema,
        headers: {
          'idempotent-replayed': { description: '`true` when an earlier request with the same Idempotency-Key made the answer', schema: z.literal('true') },
        },
        example: ex.exitRecord(),
      },
    },
    errors: [...BODY_ERRORS, 409],
    errorExample: {
      status: 400,
      body: ex.validationError('takeProfit', 'an exit needs at least one trigger: takeProfit, stopLoss, trailingStop or onRug: true'),
    },
  },
];
