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
  z
    .union([z.number(), z.bigint(), z.string()], { error: required(`${what}: an integer, a decimal string or a 0x hex string`) })
    .transform((v, ctx) => {
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

export const SimulationCallSchema = z.strictObject({
  from: address(),
  /** Omitted or null: a contract creation with `data` as init code. */
  to: address().nullish().transform((v) => v ?? null),
  data: hexBytes().optional().transform((v) => v ?? '0x'),
  nonce: z
    .number({ error: typeError('an integer nonce') })
    .int({ error: 'must be an integer nonce' })
    .min(0, { error: 'must be an integer nonce' })
    .optional(),
  value: quantity(UINT256_MAX, 'wei').optional(),
  gas: quantity(UINT64_MAX, 'a gas limit').optional(),
});
export type SimulationCall = z.output<typeof SimulationCallSchema>;

const addressKeyed = <T extends z.ZodType>(value: T) =>
  z.record(z.string(), value, { error: 'must be an object keyed by address' }).superRefine((map, ctx) => {
    for (const key of Object.keys(map)) {
      if (!ADDRESS.test(key)) ctx.addIssue({ code: 'custom', path: [key], message: 'is not a 0x-prefixed 20-byte hex address', input: key });
    }
  });

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

const blockNumber = quantity(UINT64_MAX, 'a block number').optional();

/** Body of `POST /v1/simulate`. `block_number` and `blockNumber` are both accepted. */
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
    if (req.block_number !== undefined && req.blockNumber !== undefined && req.block_number !== req.blockNumber) {
      ctx.addIssue({ code: 'custom', path: ['blockNumber'], message: 'differs from block_number; send one of them', input: undefined });
    }
  })
  .transform(({ block_number, blockNumber: bn, ...rest }) => ({ ...rest, blockNumber: bn ?? block_number ?? null }));
export type SimulateRequest = z.output<typeof SimulateRequestSchema>;

export interface SimulationLog {
  address: string;
  topics: string[];
  data: string;
}

export interface InternalTransfer {
  from: string;
  to: string;
  /** Wei, hex. */
  amount: string;
}

export interface SimulatedCall {
  logs: SimulationLog[];
  /** Hex, as in a receipt: intrinsic gas included, refunds applied. */
  gasUsed: string;
  /** Return data, hex; "" when empty. */
  result: string;
  /** 1 success, 0 reverted or failed. */
  status: 0 | 1;
  internalTransfers: InternalTransfer[];
  /** On failure: the decoded revert reason (`Error(string)`, `Panic(uint256)`), else the raw hex or the EVM error. */
  error?: string;
}

export interface SimulationResult {
  chainId: number;
  /** The block whose state the calls ran on, hex. */
  blockNumber: string;
  /** Milliseconds. */
  processTime: number;
  calls: SimulatedCall[];
}

export interface SimulateMessage {
  body: unknown;
}
