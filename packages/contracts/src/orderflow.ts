import { z } from 'zod';
import { sourceId } from './payouts.js';
import { typeError } from './validation.js';

/**
 * Order flow: wallets' private transactions (`POST /v1/rpc`), MEV-Share hints
 * (`GET /v1/mev/stream`) and searchers' bundles (`POST /v1/mev`). The JSON-RPC bodies are
 * checked item by item by the orderflow service (a bad item gets a JSON-RPC error, the others
 * their answers); the gateway checks the HTTP envelope only.
 */

/** MEV-Share's hint names (`preferences.privacy.hints`), plus `value` and `gas_used` (ours: the transaction's value; its simulated gas). */
export const HINT_NAMES = [
  'hash',
  'tx_hash',
  'calldata',
  'contract_address',
  'function_selector',
  'logs',
  'default_logs',
  'special_logs',
  'full',
  'value',
  'gas_used',
] as const;
export type HintName = (typeof HINT_NAMES)[number];
/** What a transaction shares when its sender names no hints: MEV-Share's "Stable" configuration (the hash and swap logs' pool and event). */
export const DEFAULT_HINTS: readonly HintName[] = ['hash', 'default_logs'];

/** Blocks after the current one a private transaction may wait when it names no `maxBlockNumber` (MEV-Share's default). */
export const DEFAULT_MAX_BLOCKS = 25;
/** Most blocks ahead a transaction's `maxBlockNumber`, or a bundle's `maxBlock`, may reach. */
export const MAX_BLOCKS_AHEAD = 100;
/** Most requests in one JSON-RPC batch. */
export const JSON_RPC_MAX_BATCH = 100;

const HEX_QUANTITY = /^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$/;
const HEX_BYTES = /^0x([0-9a-fA-F]{2})*$/;

/** A 0x hex quantity (`"0x1a"`), as a bigint. */
export const hexQuantity = (what: string) =>
  z
    .string({ error: typeError(`${what} as a 0x hex quantity`) })
    .max(66, { error: `must be ${what} as a 0x hex quantity`, abort: true })
    .regex(HEX_QUANTITY, { error: `must be ${what} as a 0x hex quantity (no leading zeros)` })
    .transform((v) => BigInt(v));

/** Signed transaction bytes, 0x hex, at most `max` bytes. */
export const rawTransaction = (max: number) =>
  z
    .string({ error: typeError('a signed transaction as 0x hex bytes') })
    .max(2 + 2 * max, { error: `must be at most ${max} bytes`, abort: true })
    .regex(HEX_BYTES, { error: 'must be a signed transaction as 0x hex bytes' })
    .refine((v) => v.length > 2, { error: 'must not be empty' })
    .transform((v) => v.toLowerCase());

const txHashField = () =>
  z
    .string({ error: typeError('a 0x-prefixed 32-byte hex transaction hash') })
    .regex(/^0x[0-9a-fA-F]{64}$/, { error: 'must be a 0x-prefixed 32-byte hex transaction hash' })
    .transform((v) => v.toLowerCase());

/** One JSON-RPC 2.0 request (an item of a batch). */
export const JsonRpcRequestSchema = z.object({
  jsonrpc: z.literal('2.0', { error: 'must be "2.0"' }),
  id: z.union([z.string().max(200), z.number(), z.bigint(), z.null()], { error: 'must be a string, a number or null' }).optional(),
  method: z
    .string({ error: typeError('a method name') })
    .min(1, { error: 'must be a method name' })
    .max(100, { error: 'must be a method name' }),
  params: z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())], { error: 'must be an array or an object' }).optional(),
});
export type JsonRpcRequest = z.output<typeof JsonRpcRequestSchema>;

/** A JSON-RPC body: one request or a batch of them. Checked item by item by the service. */
export const JsonRpcBodySchema = z
  .union([z.record(z.string(), z.unknown()), z.array(z.unknown()).min(1).max(JSON_RPC_MAX_BATCH)], {
    error: `must be a JSON-RPC request object or a batch (an array of 1 to ${JSON_RPC_MAX_BATCH} requests)`,
  })
  .meta({ description: 'A JSON-RPC 2.0 request, or a batch of them' });

/** The JSON-RPC error object. */
export const JsonRpcErrorSchema = z.strictObject({
  code: z.number().int(),
  message: z.string(),
  data: z.unknown().optional(),
});
export type JsonRpcError = z.output<typeof JsonRpcErrorSchema>;

/** One JSON-RPC answer: `result` or `error`. */
export const JsonRpcResponseSchema = z.strictObject({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string(), z.number(), z.null()]),
  result: z.unknown().optional(),
  error: JsonRpcErrorSchema.optional(),
});
export type JsonRpcResponse = z.output<typeof JsonRpcResponseSchema>;
/** What `POST /v1/rpc` and `POST /v1/mev` answer: one response, or one per request of a batch. */
export const JsonRpcReplySchema = z.union([JsonRpcResponseSchema, z.array(JsonRpcResponseSchema)]);

/** JSON-RPC error codes used (EIP-1474 and the JSON-RPC 2.0 spec). */
export const JsonRpcCode = {
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  Internal: -32603,
  /** A transaction or bundle refused by a rule (nonce, balance, simulation). */
  Rejected: -32000,
  /** No replica, no node, or a node error. */
  Unavailable: -32002,
  LimitExceeded: -32005,
} as const;

/** Query of `POST /v1/rpc`: the source credited, the chain (default 1), and how the key may come. */
export const RpcQuerySchema = z.strictObject({
  source: sourceId(),
  chainId: z
    .string({ error: 'must be a positive integer chain id' })
    .regex(/^[1-9][0-9]{0,9}$/, { error: 'must be a positive integer chain id' })
    .transform(Number)
    .optional(),
  /** The API key, for wallets that cannot send headers (an RPC URL). */
  key: z.string().max(200).optional(),
  /** `true`: a transaction not included by its `maxBlockNumber` is then sent to the chain's public mempool. */
  useMempool: z.enum(['true', 'false'], { error: 'must be true or false' }).optional(),
});
export type RpcQuery = z.output<typeof RpcQuerySchema>;

/** Query of `GET /v1/mev/stream`: the chain whose hints to follow (default 1). */
export const MevStreamQuerySchema = z.strictObject({
  chainId: z
    .string({ error: 'must be a positive integer chain id' })
    .regex(/^[1-9][0-9]{0,9}$/, { error: 'must be a positive integer chain id' })
    .transform(Number)
    .optional(),
});

/** `eth_sendPrivateTransaction`'s parameter object (MEV-Share's). */
export const PrivateTransactionParamsSchema = (maxTxBytes: number) =>
  z.object({
    tx: rawTransaction(maxTxBytes),
    maxBlockNumber: hexQuantity('a block number').optional(),
    preferences: z
      .object({
        fast: z.boolean({ error: 'must be true or false' }).optional(),
        privacy: z
          .object({
            hints: z
              .array(z.enum(HINT_NAMES, { error: `must be one of ${HINT_NAMES.join(', ')}` }), { error: 'must be an array of hint names' })
              .max(HINT_NAMES.length)
              .optional(),
            builders: z.array(z.string().max(100), { error: 'must be an array of builder names' }).max(50).optional(),
          })
          .optional(),
        validity: z.unknown().optional(),
      })
      .optional(),
  });

/** One item of a bundle's `body`: the target by hash, or a signed transaction of the searcher's. */
export const BundleItemSchema = (maxTxBytes: number) =>
  z.union(
    [
      z.strictObject({ hash: txHashField() }),
      z.strictObject({ tx: rawTransaction(maxTxBytes), canRevert: z.boolean({ error: 'must be true or false' }).optional() }),
    ],
    { error: 'must be {hash} or {tx, canRevert} (nested bundles are not taken)' },
  );

/** `mev_sendBundle` / `mev_simBundle` parameters, MEV-Share v0.1. */
export const MevBundleSchema = (maxTxBytes: number, maxBodyTxs: number) =>
  z.object({
    version: z.enum(['v0.1', 'beta-1'], { error: 'must be "v0.1"' }),
    inclusion: z.object({
      block: hexQuantity('a block number'),
      maxBlock: hexQuantity('a block number').optional(),
    }),
    body: z
      .array(BundleItemSchema(maxTxBytes), { error: 'must be an array of bundle items' })
      .min(2, { error: 'must hold the target ({hash}) and at least one transaction of yours' })
      .max(maxBodyTxs + 1, { error: `must hold at most ${maxBodyTxs} transactions after the target` }),
    validity: z
      .object({
        refund: z.array(z.object({ bodyIdx: z.number().int().min(0), percent: z.number().int().min(0).max(100) })).optional(),
        refundConfig: z.array(z.object({ address: z.string().regex(/^0x[0-9a-fA-F]{40}$/), percent: z.number().int().min(0).max(100) })).optional(),
      })
      .optional(),
    privacy: z
      .object({
        hints: z.array(z.enum(HINT_NAMES)).optional(),
        builders: z.array(z.string().max(100)).max(50).optional(),
      })
      .optional(),
    metadata: z.unknown().optional(),
  });
export type MevBundle = z.output<ReturnType<typeof MevBundleSchema>>;

/** A log as MEV-Share's hints carry it. */
export interface HintLog {
  address: string;
  topics: string[];
  data: string;
}

/**
 * One event of the hint stream, in MEV-Share's shape (what `@flashbots/mev-share-client` parses):
 * the hash always; the rest only as the sender's hints allow.
 */
export interface MevShareHint {
  hash: string;
  logs?: HintLog[];
  txs?: { to?: string; functionSelector?: string; callData?: string; value?: string }[];
  gasUsed?: string;
  mevGasPrice?: string;
}

/** What `mev_simBundle` answers (MEV-Share's shape; quantities 0x hex). */
export interface SimBundleResult {
  success: boolean;
  error?: string;
  stateBlock: string;
  mevGasPrice: string;
  profit: string;
  refundableValue: string;
  gasUsed: string;
  logs: { txLogs: HintLog[] }[];
}
