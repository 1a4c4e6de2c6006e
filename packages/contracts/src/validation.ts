import { getAddress } from 'ethers';
import { z } from 'zod';
import { ContractValidationError, type FieldIssue } from './errors.js';

export const UINT256_MAX = (1n << 256n) - 1n;

const DECIMAL_INTEGER = /^(0|[1-9][0-9]*)$/;
const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** The message of a wrong-typed field: `is required`, `must be <expected>`, or why a big integer does not fit. */
export function typeError(expected: string) {
  return (issue: { input?: unknown; code?: string }) => {
    if (issue.input === undefined) return 'is required';
    return typeof issue.input === 'bigint' ? `must be ${expected} (${tooLarge(issue.input)})` : `must be ${expected}`;
  };
}

/** Why an exact big JSON integer does not fit a field that must be a safe integer. */
export function tooLarge(input: bigint): string {
  return `${input} is beyond 2^53-1, the largest integer this field takes`;
}

/** A decimal integer string in 0..2^256-1 (wei, token units, cents). Kept as a string: never a float. */
export function uint256String(what = 'an amount') {
  return z
    .string({ error: typeError(`${what} as a decimal integer string`) })
    .max(78, { error: `must be ${what} as a decimal integer string of at most 78 digits`, abort: true })
    .regex(DECIMAL_INTEGER, {
      error: `must be ${what} as a decimal integer string (digits only, no sign, no leading zeros)`,
      abort: true,
    })
    .refine((v) => BigInt(v) <= UINT256_MAX, { error: 'must be at most 2^256-1' });
}

/**
 * The last {@link checksumAddress} answers by input (the oldest dropped first past
 * CHECKSUMS_MAX): the checksum is a Keccak-256 in plain JavaScript, about 7% of the CPU a create
 * costs in the gateway and again in the intent service, and the same wallets and tokens recur.
 */
const CHECKSUMS = new Map<string, string | null>();
const CHECKSUMS_MAX = 10_000;

/**
 * The EIP-55 form of a 0x-prefixed 20-byte hex address, or null when its case is mixed and not
 * a valid checksum (all-lowercase or all-uppercase hex carries none and is accepted).
 */
export function checksumAddress(value: string): string | null {
  const known = CHECKSUMS.get(value);
  if (known !== undefined) return known;
  const body = value.slice(2);
  const mixed = body !== body.toLowerCase() && body !== body.toUpperCase();
  let address: string | null;
  try {
    address = getAddress(mixed ? value : `0x${body.toLowerCase()}`);
  } catch {
    address = null;
  }
  if (value.length !== 42) return address; // only addresses' worth of text is kept
  if (CHECKSUMS.size >= CHECKSUMS_MAX) CHECKSUMS.delete(CHECKSUMS.keys().next().value!);
  CHECKSUMS.set(value, address);
  return address;
}

/**
 * An EIP-55 address: all-lowercase or all-uppercase hex is accepted, mixed case must carry a
 * valid checksum. Normalised to the checksummed form.
 */
export function checksummedAddress() {
  return z
    .string({ error: typeError('a 0x-prefixed 20-byte hex address') })
    .regex(HEX_ADDRESS, { error: 'must be a 0x-prefixed 20-byte hex address', abort: true })
    .transform((value, ctx) => {
      const address = checksumAddress(value);
      if (address !== null) return address;
      ctx.addIssue({ code: 'custom', message: INVALID_CHECKSUM, input: value });
      return z.NEVER;
    });
}

/** What an address with a wrong EIP-55 checksum is told. */
export const INVALID_CHECKSUM = 'has an invalid EIP-55 checksum';

/** An unpaired UTF-16 surrogate: text that is not valid Unicode (it cannot be written as UTF-8). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Why `value` cannot be stored as text (Postgres refuses NUL; an unpaired surrogate is not
 * Unicode), or null when it can. The gateway applies it to every string of every input; the
 * schemas of free-text fields apply it again, so a service never stores such text either.
 */
export function textProblem(value: string): string | null {
  if (value.includes('\u0000')) return 'must not contain NUL (\\u0000)';
  if (LONE_SURROGATE.test(value)) return 'must be valid Unicode text (it holds an unpaired surrogate)';
  return null;
}

/** Free text of 1..`max` characters: no NUL, valid Unicode. */
export function text(what: string, max: number) {
  return z
    .string({ error: typeError(what) })
    .min(1, { error: `must be ${what} of 1 to ${max} characters`, abort: true })
    .max(max, { error: `must be ${what} of 1 to ${max} characters`, abort: true })
    .superRefine((value, ctx) => {
      const problem = textProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem, input: value });
    });
}

/**
 * An ISO 8601 date-time with an offset that Postgres can store as `timestamptz`: a real
 * calendar date (no 31 February) in the years 0001..9999.
 */
export function isoDateTime(what: string) {
  const message = `must be ${what} as an ISO 8601 date-time (years 0001 to 9999)`;
  return z.iso
    .datetime({ offset: true, error: message, abort: true })
    .refine((v) => !v.startsWith('0000') && Number.isFinite(Date.parse(v)), { error: message });
}

export function integer(min: number, max: number, what = 'an integer') {
  return z
    .number({ error: typeError(`${what} from ${min} to ${max}`) })
    .int({ error: `must be ${what} from ${min} to ${max}`, abort: true })
    .min(min, { error: `must be ${what} from ${min} to ${max}` })
    .max(max, { error: `must be ${what} from ${min} to ${max}` });
}

export function fraction() {
  return z
    .number({ error: typeError('a number from 0 to 1') })
    .min(0, { error: 'must be a number from 0 to 1' })
    .max(1, { error: 'must be a number from 0 to 1' });
}

export function boolean() {
  return z.boolean({ error: typeError('true or false') });
}

/**
 * Parses `input` with `schema` or throws a {@link ContractValidationError} listing every
 * problem by field. The one entry point the gateway and the services validate with.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new ContractValidationError(toFieldIssues(result.error.issues));
}

export function toFieldIssues(issues: readonly z.core.$ZodIssue[]): FieldIssue[] {
  const out: FieldIssue[] = [];
  for (const issue of issues) {
    const base = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        out.push({ path: base ? `${base}.${key}` : key, message: 'is not a known field' });
      }
    } else if (issue.code === 'invalid_type' && issue.path.length === 0) {
      out.push({ path: '', message: `body must be a JSON ${issue.expected}` });
    } else {
      out.push({ path: base, message: issue.message });
    }
  }
  return out;
}
