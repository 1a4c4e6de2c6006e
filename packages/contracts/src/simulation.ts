import { z } from 'zod';
import { typeError, UINT256_MAX } from './validation.js';

export const SIMULATION_MAX_CALLS = 100;
/** Largest call data / code accepted, in bytes (EIP-170 allows 24 KiB of code; init code 48 KiB). */
export const SIMULATION_MAX_DATA_BYTES = 128 * 1024;

const HEX_BYTES = /^0x([0-9a-fA-F]{2})*$/;
const HEX_QUANTITY = /^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$/;
const DECIMAL = /^(0|[1-9][0-9]*)$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

const required = typeError;

/** A 20-byte address in any letter case, normalised to lowercase (the engine's form). */
const address = () =>
  z
    .string({ error: required('a 0x-prefixed 20-byte hex address') })
    .regex(ADDRESS, { error: 'must be a 0x-prefixed 20-byte hex address' })
    .transform((v) => v.toLowerCase());

/** 0x-prefixed bytes (even length), at most `max` bytes; normalised to lowercase. */
const hexBytes = (max = SIMULATION_MAX_DATA_BYTES) =>
  z
    .string({ error: required('0x-prefixed hex bytes') })
    .max(2 + 2 * max, { error: `must be at most ${max} bytes`, abort: true })
    .regex(HEX_BYTES, { error: 'must be 0x-prefixed hex bytes (an even number of hex digits)' })
    .transform((v) => v.toLowerCase());

/**
 * An unsigned quantity up to `max`: a JSON integer (exact at any size: the body is parsed
 * losslessly, so a big one arrives as a bigint), a decimal string, or a 0x hex string.
 * Returned as a bigint.
 */
export const quantity = (max: bigint, what: string) =>
  z.union([z.number(), z.bigint(), z.string()], { error: required(`${what}: an integer, a decimal string or a 0x hex string`) }).transform((v, ctx) => {
    let n: bigint | null = null;
    if (typeof v === 'bigint') {
      if (v >= 0n) n = v;
    } else if (typeof v === 'number') {
      if (Number.isSafeInteger(v) && v >= 0) n = BigInt(v);
    } else if (v.length <= 80 && (DECIMAL.test(v) || HEX_QUANTITY.test(v))) {
      n = BigInt(v);
    }
    if (n === null) {
      ctx.addIssue({ code: 'custom', message: `must be ${what}: a non-negative integer, a decimal string or a 0x hex string`, input: v });
      return z.NEVER;
    }
    if (n > max) {
      ctx.addIssue({ code: 'custom', message: `must be at most ${max === UINT256_MAX ? '2^256-1' : max.toString()}`, input: v });
      return z.NEVER;
    }
    return n;
  });

const UINT64_MAX = (1n << 64n) - 1n;

/** A storage slot or value: up to 32 bytes of hex, normalised to a 0x-prefixed 32-byte word. */
const word = () =>
  z
    .string({ error: required('a 0x-prefixed hex word of at most 32 bytes') })
    .regex(/^0x[0-9a-fA-F]{1,64}$/, { error: 'must be a 0x-prefixed hex word of at most 32 bytes' })
    .transform((v) => `0x${v.slice(2).toLowerCase().padStart(64, '0')}`);

const addressKeyed = <T extends z.ZodType>(value: T) =>
  z.record(z.string(), value, { error: 'must be an object keyed by address' }).superRefine((map, ctx) => {
    for (const key of Object.keys(map)) {
      if (!ADDRESS.test(key)) ctx.addIssue({ code: 'custom', path: [key], message: 'is not a 0x-prefixed 20-byte hex address', input: key });
    }
  });

/**
 * State overrides, for the whole bundle (before the first call) or for one call (just before it).
 * `storage` sets single slots (the rest of the account's storage stays as it is).
 */
export const SimulationOverridesSchema = z.strictObject({
  accounts: addressKeyed(
    z.strictObject({
      nonce: z
        .number({ error: typeError('an integer nonce') })
        .int({ error: 'must be an integer nonce' })
        .min(0, { error: 'must be an integer nonce' })
        .optional(),
      balance: quantity(UINT256_MAX, 'wei').optional(),
    }),
  ).optional(),
  contractCodes: addressKeyed(hexBytes(64 * 1024)).optional(),
  storage: addressKeyed(
    z.record(z.string(), word(), { error: 'must be an object from slot to value' }).superRefine((slots, ctx) => {
      for (const slot of Object.keys(slots)) {
        if (!/^0x[0-9a-fA-F]{1,64}$/.test(slot)) {
          ctx.addIssue({ code: 'custom', path: [slot], message: 'is not a 0x-prefixed hex slot of at most 32 bytes', input: slot });
        }
      }
    }),
  ).optional(),
});
export type SimulationOverrides = z.output<typeof SimulationOverridesSchema>;

const gasLimit = quantity(UINT64_MAX, 'a gas limit').optional();

/**
 * One call. `gasLimit` is another name for `gas` (Merkle's SDKs send `gasLimit`); both present
 * and different is refused. Its output parses again to itself (the gateway forwards it).
 */
export const SimulationCallSchema = z
  .strictObject({
    from: address(),
    /** Omitted or null: a contract creation with `data` as init code. */
    to: address()
      .nullish()
      .transform((v) => v ?? null),
    data: hexBytes()
      .optional()
      .transform((v) => v ?? '0x'),
    nonce: z
      .number({ error: typeError('an integer nonce') })
      .int({ error: 'must be an integer nonce' })
      .min(0, { error: 'must be an integer nonce' })
      .optional(),
    value: quantity(UINT256_MAX, 'wei').optional(),
    gas: gasLimit,
    gasLimit,
    /** Applied just before this call, on top of what the calls before it did. */
    overrides: SimulationOverridesSchema.optional(),
  })
  .superRefine((call, ctx) => {
    if (call.gas !== undefined && call.gasLimit !== undefined && call.gas !== call.gasLimit) {
      ctx.addIssue({ code: 'custom', path: ['gasLimit'], message: 'differs from gas; send one of them', input: undefined });
    }
  });
export type SimulationCall = z.output<typeof SimulationCallSchema>;

/** A call's gas limit, and the field it was given in (for error messages). */
export function callGas(call: SimulationCall): { gas: bigint | undefined; field: 'gas' | 'gasLimit' } {
  return call.gas !== undefined || call.gasLimit === undefined ? { gas: call.gas, field: 'gas' } : { gas: call.gasLimit, field: 'gasLimit' };
}

/** null or absent: the latest block. */
const blockNumber = quantity(UINT64_MAX, 'a block number').nullish();

/** Body of `POST /v1/simulate`. `block_number` and `blockNumber` are both accepted; the output parses again to itself. */
export const SimulateRequestSchema = z
  .strictObject({
    chainId: z
      .number({ error: required('a positive integer chain id') })
      .int({ error: 'must be a positive integer chain id' })
      .min(1, { error: 'must be a positive integer chain id' }),
    block_number: blockNumber,
    blockNumber,
    calls: z
      .array(SimulationCallSchema, { error: required('an array of calls') })
      .min(1, { error: 'must hold at least one call' })
      .max(SIMULATION_MAX_CALLS, { error: `must hold at most ${SIMULATION_MAX_CALLS} calls` }),
    overrides: SimulationOverridesSchema.optional(),
  })
  .superRefine((req, ctx) => {
    if (req.block_number != null && req.blockNumber != null && req.block_number !== req.blockNumber) {
      ctx.addIssue({ code: 'custom', path: ['blockNumber'], message: 'differs from block_number; send one of them', input: undefined });
    }
  })
  .transform(({ block_number, blockNumber: bn, ...rest }) => ({ ...rest, blockNumber: bn ?? block_number ?? null }));
export type SimulateRequest = z.output<typeof SimulateRequestSchema>;

/**
 * What a failed call's `error.type` says (Merkle's SDKs read `{type, message}`): `revert` (REVERT
 * with data other than `Panic(uint256)`, or none), `panic` (a Solidity `Panic(uint256)`), and the
 * EVM's exceptional halts.
 */
export const SIMULATION_ERROR_TYPES = [
  'revert',
  'panic',
  'out_of_gas',
  'invalid_opcode',
  'stack_overflow',
  'stack_underflow',
  'invalid_jump',
  'static_state_change',
  'create_collision',
  'code_size_exceeded',
  'initcode_size_exceeded',
  'invalid_code',
  'out_of_bounds',
  'insufficient_balance',
  'precompile_error',
  'internal',
] as const;
export type SimulationErrorType = (typeof SIMULATION_ERROR_TYPES)[number];

// ---- The answer of `POST /v1/simulate` (the types are inferred from these schemas) ----

const hexData = () => z.string().regex(/^0x([0-9a-fA-F]{2})*$/);
const hexQuantity = () => z.string().regex(/^0x[0-9a-fA-F]+$/);
const anyAddress = () => z.string().regex(ADDRESS);
const word32 = () =>
  z
    .string()
    .regex(/^0x[0-9a-f]{64}$/)
    .meta({ description: '32-byte word' });

export const SimulationLogSchema = z.strictObject({
  address: anyAddress(),
  topics: z.array(z.string().regex(/^0x[0-9a-fA-F]{64}$/)),
  data: hexData(),
});
export type SimulationLog = z.output<typeof SimulationLogSchema>;

export const InternalTransferSchema = z.strictObject({
  from: anyAddress(),
  to: anyAddress(),
  /** Wei, hex. */
  amount: hexQuantity().meta({ description: 'Wei, 0x hex' }),
});
export type InternalTransfer = z.output<typeof InternalTransferSchema>;

export const SimulatedCallErrorSchema = z
  .strictObject({
    type: z
      .enum(SIMULATION_ERROR_TYPES)
      .meta({ description: '`panic`: a Solidity Panic(uint256); `precompile_error`: a failing call straight to a precompile' }),
    /** The decoded reason: the `Error(string)` text, `Panic(0x11): arithmetic overflow or underflow`, the raw revert hex, or the EVM error. */
    message: z.string().meta({ description: 'The Error(string) reason, Panic(code): meaning, the raw revert hex, "execution reverted", or the EVM error' }),
  })
  .meta({ description: "On failure only (Merkle's SDKs read this shape)" });
export type SimulatedCallError = z.output<typeof SimulatedCallErrorSchema>;

/**
 * What one call changed, in the overrides' own shape: send it back as `overrides` to continue
 * from the state after the call. Only entries that differ from before the call; empty sections
 * are left out. Addresses EIP-55 checksummed; balances 0x hex wei; slots and values 32-byte words.
 */
export const StateUpdateSchema = z
  .strictObject({
    accounts: z
      .record(
        z.string(),
        z.strictObject({
          nonce: z.number().int().min(0).optional(),
          balance: hexQuantity().meta({ description: 'Wei, 0x hex (a string, as overrides take it)' }).optional(),
        }),
      )
      .optional(),
    contractCodes: z.record(z.string(), hexData()).optional(),
    storage: z.record(z.string(), z.record(z.string(), word32()).meta({ description: 'slot (32-byte word) → value (32-byte word)' })).optional(),
  })
  .meta({
    description:
      "What the call changed, in the overrides' own shape (send it back as `overrides` to continue from the state after the call): only entries that differ from before the call (after its own overrides); empty sections left out. " +
      'An account the call deleted (created and self-destructed in one transaction, EIP-6780) reads nonce 0, balance 0x0, code 0x, and every slot of it the simulation knows of 0.',
  });
export type StateUpdate = z.output<typeof StateUpdateSchema>;

export const SimulatedCallSchema = z.strictObject({
  logs: z.array(SimulationLogSchema),
  /** Hex, as in a receipt: intrinsic gas included, refunds applied. */
  gasUsed: hexQuantity().meta({ description: 'As in a receipt: intrinsic gas included, refunds applied' }),
  /** Return data, hex; "" when empty. */
  result: z.union([z.literal(''), hexData()]).meta({ description: 'Return (or revert) data, hex; "" when empty' }),
  /** 1 success, 0 reverted or failed. */
  status: z.literal([0, 1]).meta({ description: '1 success, 0 reverted or failed' }),
  internalTransfers: z.array(InternalTransferSchema).meta({
    description: 'Native value moved by nested CALL/CALLCODE, CREATE/CREATE2 endowments and SELFDESTRUCT, in frames that did not revert',
  }),
  /** On failure. */
  error: SimulatedCallErrorSchema.optional(),
  /** A successful contract creation (a call without `to`): the new contract, checksummed. */
  addressCreated: anyAddress().meta({ description: 'A creation (no `to`) that succeeded: the new contract' }).optional(),
  /** The state the call changed. */
  updated: StateUpdateSchema,
});
export type SimulatedCall = z.output<typeof SimulatedCallSchema>;

export const SimulationResultSchema = z.strictObject({
  /** A UUID for this simulation (also in the simulation service's log line for it). */
  id: z.uuid().meta({ description: "This simulation (also in the simulation service's log line for it)" }),
  chainId: z.number().int().min(1),
  /** The block whose state the calls ran on, hex. */
  blockNumber: hexQuantity().meta({ description: 'The block whose state the calls ran on' }),
  /** Milliseconds. */
  processTime: z.number().int().min(0).meta({ description: 'Milliseconds' }),
  calls: z.array(SimulatedCallSchema).meta({ description: 'One result per call, in order' }),
});
export type SimulationResult = z.output<typeof SimulationResultSchema>;
