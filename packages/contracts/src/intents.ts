import { z } from 'zod';
import { INTENT_STATUSES, WEBHOOK_PROTOCOLS, type WebhookProtocol } from './intent-vocabulary.js';
import { BuyExitSchema, exitFields, exitRules } from './exits.js';
import { boolean, checksummedAddress, fraction, integer, textProblem, uint256String } from './validation.js';

/** How far ahead an intent may expire. */
export const MAX_EXPIRY_AHEAD_SECONDS = 30 * 24 * 60 * 60;
export const DEFAULT_CHAIN_IDS: readonly number[] = [1, 56, 137];

export const SEARCH_MAX_ADDRESSES = 100;
export const SEARCH_DEFAULT_LIMIT = 100;
export const SEARCH_MAX_LIMIT = 500;

/** Optional fields accept `null` as "not set", so a returned record can be sent back as is. */
function optional<T extends z.ZodType>(schema: T) {
  return schema.nullish().transform((v) => v ?? null);
}

/** A webhook URL: https (or http where the service allows it), at most 2048 characters. */
function webhookUrl(allowHttp: boolean) {
  return z
    .string({ error: 'must be an https URL' })
    .max(2048, { error: 'must be at most 2048 characters', abort: true })
    .refine(
      (v) => {
        if (textProblem(v) !== null) return false;
        try {
          const url = new URL(v);
          return (url.protocol === 'https:' || (allowHttp && url.protocol === 'http:')) && !url.username && !url.password;
        } catch {
          return false;
        }
      },
      { error: allowHttp ? 'must be an http(s) URL without credentials' : 'must be an https URL without credentials' },
    );
}

export interface CreateIntentOptions {
  /** Chains the service executes on; omitted: any positive chain id (the gateway's shape check). */
  chainIds?: readonly number[];
  /** Accept plain-http webhook URLs (local development); default: https only. */
  allowHttpWebhooks?: boolean;
  /** Clock in ms, for tests. */
  now?: () => number;
}

/**
 * Body of `POST /v1/intent`. The gateway parses with the shape (no chain list); the intent
 * service parses with the same schema and its configured chain ids.
 */
export function createIntentRequestSchema(options: CreateIntentOptions = {}) {
  return z
    .strictObject({
      ...intentFields(options),
      /** The exit created when the buy completes (docs/api/exits.md). */
      exit: optional(BuyExitSchema),
    })
    .superRefine(feeRecipientRequired)
    .superRefine((intent, ctx) => {
      if (intent.exit !== null) checkExpiry(intent.exit.expiry, options.now ?? Date.now, ctx, ['exit', 'expiry']);
      if (intent.webhookBatch === true && intent.webhookUrl === null) {
        ctx.addIssue({ code: 'custom', path: ['webhookBatch'], message: 'needs a webhookUrl (the signing webhook that takes batches)', input: true });
      }
      if (intent.webhookProtocol !== null && intent.webhookUrl === null) {
        ctx.addIssue({
          code: 'custom',
          path: ['webhookProtocol'],
          message: 'needs a webhookUrl (the signing webhook it names the protocol of)',
          input: intent.webhookProtocol,
        });
      }
      if (intent.webhookBatch === true && intent.webhookProtocol === 'merkle') {
        ctx.addIssue({
          code: 'custom',
          path: ['webhookBatch'],
          message: 'Merkle\'s signature webhook signs one transaction per request: batches need webhookProtocol "tradeinfra"',
          input: true,
        });
      }
    });
}
export type CreateIntentRequest = z.output<ReturnType<typeof createIntentRequestSchema>>;

/**
 * Body of `POST /v1/exit`: the intent fields a sell needs (chain, wallet, token, expiry,
 * webhooks, gasTip) and the exit's triggers and terms (exits.ts).
 */
export function createExitRequestSchema(options: CreateIntentOptions = {}) {
  const f = intentFields(options);
  return z
    .strictObject({
      chainId: f.chainId,
      wallet: f.wallet,
      tokenAddress: f.tokenAddress,
      expiry: f.expiry,
      gasTip: f.gasTip,
      notificationWebhookUrl: f.notificationWebhookUrl,
      webhookUrl: f.webhookUrl,
      webhookProtocol: f.webhookProtocol,
      ...exitFields(),
    })
    .superRefine(exitRules);
}
export type CreateExitRequest = z.output<ReturnType<typeof createExitRequestSchema>>;

function checkExpiry(expiry: number, now: () => number, ctx: z.RefinementCtx, path: (string | number)[]): void {
  const nowSeconds = Math.floor(now() / 1000);
  if (expiry <= nowSeconds) {
    ctx.addIssue({ code: 'custom', path, message: `must be in the future (now is ${nowSeconds})`, input: expiry });
  } else if (expiry > nowSeconds + MAX_EXPIRY_AHEAD_SECONDS) {
    ctx.addIssue({ code: 'custom', path, message: 'must be at most 30 days ahead', input: expiry });
  }
}

/** A wallet intent's EIP-712 signature: 65 bytes (r, s, v) as 0x-prefixed hex. */
export const WALLET_INTENT_SIGNATURE = /^0x[0-9a-fA-F]{130}$/;

/** What Merkle's 5-field `BuyIntent` does not bind: refused on a wallet intent without a `nonce`. */
export const MERKLE_WALLET_INTENT_UNBOUND = ['feeBps', 'feeRecipient', 'minOut', 'firstOrFail'] as const;

/**
 * Body of `POST /v1/wallet/intent`: the intent and `signature`, the wallet's EIP-712 signature
 * (domain `{OPL, 1, chainId, executor}`) of our 11-field `BuyIntent` when `nonce` is given, else
 * of Merkle's 5-field one, which binds no fee, `minOut` or `firstOrFail`, so those must then be
 * absent (docs/merkle.md).
 */
export function createWalletIntentRequestSchema(options: CreateIntentOptions = {}) {
  const { webhookUrl: _noWebhook, webhookBatch: _noBatch, webhookProtocol: _noProtocol, ...fields } = intentFields(options);
  return z
    .strictObject({
      ...fields,
      nonce: optional(uint256String('a nonce')),
      signature: z
        .string({ error: 'must be a 65-byte hex signature (0x + 130 hex digits)' })
        .regex(WALLET_INTENT_SIGNATURE, { error: 'must be a 65-byte hex signature (0x + 130 hex digits)' }),
    })
    .superRefine(feeRecipientRequired)
    .superRefine((intent, ctx) => {
      if (intent.nonce !== null) return;
      for (const field of MERKLE_WALLET_INTENT_UNBOUND) {
        if (intent[field] === null) continue;
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message:
            "is not part of Merkle's 5-field BuyIntent (no nonce given), so nothing on-chain would hold the buy to it: leave it out, or sign our BuyIntent with a nonce",
          input: intent[field],
        });
      }
    });
}
export type CreateWalletIntentRequest = z.output<ReturnType<typeof createWalletIntentRequestSchema>>;

function feeRecipientRequired(intent: { feeBps: number | null; feeRecipient: string | null }, ctx: z.RefinementCtx): void {
  const feeBps = intent.feeBps;
  const validFee = feeBps !== null && Number.isInteger(feeBps) && feeBps > 0 && feeBps <= 10_000;
  if (validFee && intent.feeRecipient === null) {
    ctx.addIssue({ code: 'custom', path: ['feeRecipient'], message: 'is required when feeBps is above 0', input: undefined });
  }
}

/** The fields of a new intent, shared by `POST /v1/intent` and `POST /v1/wallet/intent`. */
function intentFields(options: CreateIntentOptions) {
  const now = options.now ?? Date.now;
  const chainIds = options.chainIds;
  return {
    chainId: integer(1, Number.MAX_SAFE_INTEGER, 'a positive integer chain id').refine((id) => !chainIds || chainIds.includes(id), {
      error: `must be one of the supported chains: ${chainIds?.join(', ')}`,
    }),
    wallet: checksummedAddress(),
    tokenAddress: checksummedAddress(),
    bribe: uint256String('wei'),
    buyAmount: uint256String('wei'),
    expiry: integer(0, Number.MAX_SAFE_INTEGER, 'a unix timestamp in seconds').superRefine((expiry, ctx) => checkExpiry(expiry, now, ctx, [])),
    maxBuyTax: optional(fraction()),
    maxSellTax: optional(fraction()),
    minIn: optional(uint256String('wei')),
    minOut: optional(uint256String('token units')),
    minLiquidity: optional(uint256String('cents')),
    feeBps: optional(integer(0, 10_000, 'basis points')),
    feeRecipient: optional(checksummedAddress()),
    firstOrFail: optional(boolean()),
    maxSlippageBps: optional(integer(0, 10_000, 'basis points')),
    gasTip: optional(uint256String('wei')),
    /** Receives an HMAC-signed notification for every status change of the intent. */
    notificationWebhookUrl: optional(webhookUrl(options.allowHttpWebhooks ?? true)),
    /**
     * Signing webhook: at launch the service POSTs the unsigned buy here (HMAC-signed) and
     * expects it back signed by `wallet`. Without one the intent fails with `no_signer`
     * (unless a development signer holds the wallet's key on a local chain).
     */
    webhookUrl: optional(webhookUrl(options.allowHttpWebhooks ?? true)),
    /**
     * The signing webhook takes batches: at a launch, the buys of this tenant's intents that name
     * the same `webhookUrl` (and also set this) are asked for in one SigningBatchRequest.
     */
    webhookBatch: optional(boolean()),
    /**
     * What the signing webhook speaks: `merkle` (the default) is Merkle's signature webhook
     * (`{intentId, launch, tx, rawTx, hash}` answered by `{signature}`); `tradeinfra` is ours
     * (`{kind: "sign", transactions}` answered by `{signedTransactions}`, and batches).
     */
    webhookProtocol: optional(z.enum(WEBHOOK_PROTOCOLS, { error: `must be one of ${WEBHOOK_PROTOCOLS.join(', ')}` })),
  };
}

/**
 * The protocol an intent's signing webhook is spoken to in (null without a webhook): as asked;
 * else `tradeinfra` for a webhook that takes batches (only ours has them), else Merkle's.
 */
export function resolvedWebhookProtocol(intent: {
  webhookUrl?: string | null;
  webhookBatch?: boolean | null;
  webhookProtocol?: WebhookProtocol | null;
}): WebhookProtocol | null {
  if (!intent.webhookUrl) return null;
  return intent.webhookProtocol ?? (intent.webhookBatch ? 'tradeinfra' : 'merkle');
}
/** Most intents one `POST /v1/intents` may create. */
export const BATCH_CREATE_MAX_INTENTS = 100;
/** Most ids one bulk cancel (`DELETE /v1/intents`, `POST /v1/intents/cancel`) may name. */
export const BULK_CANCEL_MAX_IDS = 500;

/**
 * Body of `POST /v1/intents`: a JSON array of 1 to {@link BATCH_CREATE_MAX_INTENTS} intents,
 * each checked by exactly the schema of `POST /v1/intent`. A problem with an item is reported
 * under its index (`3.buyAmount`). The count is checked first, so a too-long array is refused
 * for its length alone.
 */
export function createIntentsBatchRequestSchema(options: CreateIntentOptions = {}) {
  const count = `must be an array of 1 to ${BATCH_CREATE_MAX_INTENTS} intents`;
  return z
    .array(z.unknown(), { error: (i) => (i.input === undefined ? 'is required' : count) })
    .min(1, { error: count })
    .max(BATCH_CREATE_MAX_INTENTS, {
      error: (i) => `must hold at most ${BATCH_CREATE_MAX_INTENTS} intents (it holds ${(i.input as unknown[]).length}); split the batch`,
    })
    .pipe(z.array(z.looseObject({}, { error: 'must be an intent (a JSON object)' }).pipe(createIntentRequestSchema(options))));
}
export type CreateIntentsBatchRequest = z.output<ReturnType<typeof createIntentsBatchRequestSchema>>;

/** Body of `POST /v1/intents/search`. */
export const SearchIntentsRequestSchema = z.strictObject({
  addresses: z
    .array(checksummedAddress(), { error: (i) => (i.input === undefined ? 'is required' : 'must be an array of addresses') })
    .min(1, { error: 'must hold at least one address' })
    .max(SEARCH_MAX_ADDRESSES, { error: `must hold at most ${SEARCH_MAX_ADDRESSES} addresses` }),
  status: z
    .array(z.enum(INTENT_STATUSES, { error: `must be one of ${INTENT_STATUSES.join(', ')}` }), {
      error: 'must be an array of statuses',
    })
    .min(1, { error: 'must hold at least one status' })
    .max(INTENT_STATUSES.length * 2, { error: 'has too many entries' })
    .default(['pending']),
  limit: integer(1, SEARCH_MAX_LIMIT, 'an integer').default(SEARCH_DEFAULT_LIMIT),
  cursor: z
    .string({ error: 'must be the x-next-cursor value of the previous page' })
    .max(200, { error: 'must be the x-next-cursor value of the previous page' })
    .refine((v) => textProblem(v) === null, { error: 'must be the x-next-cursor value of the previous page' })
    .nullish()
    .transform((v) => v ?? null),
});
export type SearchIntentsRequest = z.output<typeof SearchIntentsRequestSchema>;

/**
 * The search a customer dashboard sends: `addresses` may be left out (or empty), for every
 * wallet of the tenant. Offered only to dashboard tokens (`tenantWide` in the message).
 */
export const TenantSearchIntentsRequestSchema = SearchIntentsRequestSchema.extend({
  addresses: z
    .array(checksummedAddress(), { error: 'must be an array of addresses' })
    .max(SEARCH_MAX_ADDRESSES, { error: `must hold at most ${SEARCH_MAX_ADDRESSES} addresses` })
    .optional()
    .transform((v) => v ?? []),
});

/** Body of routes that take none (cancel): absent, or an empty object. */
export const NoBodySchema = z.strictObject({}).optional();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Intent ids are UUIDs (v7, time-ordered). */
export const IntentIdSchema = z
  .string({ error: 'must be an intent id (UUID)' })
  .regex(UUID, { error: 'must be an intent id (UUID)' })
  .transform((v) => v.toLowerCase());

/**
 * Body of `DELETE /v1/intents` and `POST /v1/intents/cancel`: 1 to {@link BULK_CANCEL_MAX_IDS}
 * intent ids. The same id twice (in any letter case) is refused: each id is answered once.
 */
export const BulkCancelRequestSchema = z.strictObject({
  ids: z
    .array(IntentIdSchema, { error: (i) => (i.input === undefined ? 'is required' : 'must be an array of intent ids') })
    .min(1, { error: `must hold 1 to ${BULK_CANCEL_MAX_IDS} intent ids` })
    .max(BULK_CANCEL_MAX_IDS, { error: `must hold 1 to ${BULK_CANCEL_MAX_IDS} intent ids`, abort: true })
    .superRefine((ids, ctx) => {
      const first = new Map<string, number>();
      ids.forEach((id, i) => {
        const earlier = first.get(id);
        if (earlier === undefined) first.set(id, i);
        else ctx.addIssue({ code: 'custom', path: [i], message: `repeats ids.${earlier}: name each intent once`, input: id });
      });
    }),
});
export type BulkCancelRequest = z.output<typeof BulkCancelRequestSchema>;

/** Opaque keyset cursor: the id of the last intent of a page. */
export function encodeSearchCursor(lastId: string): string {
  return Buffer.from(lastId, 'utf8').toString('base64url');
}
export function decodeSearchCursor(cursor: string): string | null {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  return UUID.test(id) && encodeSearchCursor(id) === cursor ? id.toLowerCase() : null;
}
