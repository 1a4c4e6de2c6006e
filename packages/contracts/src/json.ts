import { parse as losslessParse, stringify as losslessStringify } from 'lossless-json';

/**
 * JSON with exact integers at any size, on every hop (HTTP body → gateway → NATS → service).
 *
 * `parseJson` reads a JSON integer that a double cannot hold exactly (beyond ±2^53-1, however it
 * is written: `123456789012345678901`, `1.5e30`) as a `bigint`; every other number as a `number`
 * (fractions such as `0.05` stay doubles: they are ratios, never amounts). The schemas then
 * decide: amounts take the bigint as it is, and a field that must be a safe integer (a nonce, a
 * chain id) refuses it with a message that says so. `stringifyJson` writes bigints back as bare
 * JSON integers.
 *
 * Ordinary bodies take `JSON.parse`'s fast path: only a text with a long digit run or an
 * exponent where a number starts goes through the exact (slower) parser.
 */
export function parseJson(text: string): unknown {
  if (!MAYBE_INEXACT.test(text)) return JSON.parse(text);
  return losslessParse(text, null, exactNumber);
}

/** `JSON.stringify`, with bigints written as bare integers. */
export function stringifyJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (err) {
    if (!(err instanceof TypeError) || !/BigInt/i.test(err.message)) throw err;
    return losslessStringify(value) ?? 'null';
  }
}

/**
 * A number token that `JSON.parse` could round: 16 or more integer digits, or an exponent. It is
 * matched where a value starts (after `:`, `[` or `,`), so a string rarely matches; when one
 * does, the exact parser still gives the right answer, only slower.
 */
const MAYBE_INEXACT = /[:[,]\s*-?(\d{16,}|\d+(\.\d+)?[eE])/;

function exactNumber(text: string): number | bigint {
  const integer = integerValue(text);
  if (integer !== null && (integer > BigInt(Number.MAX_SAFE_INTEGER) || integer < -BigInt(Number.MAX_SAFE_INTEGER))) return integer;
  return Number(text);
}

/** The value of a JSON number token when it is an integer (`12`, `-3`, `1.5e3`, `2E+40`), else null. */
function integerValue(text: string): bigint | null {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!match) return null;
  const [, sign, whole, fraction = '', exponentText = '0'] = match;
  const exponent = Number(exponentText);
  // Bound the work: a 10^100000 "integer" is not an amount anyone sends; leave it to Number (Infinity).
  if (!Number.isSafeInteger(exponent) || exponent > 4096) return null;
  let digits = whole! + fraction;
  let scale = exponent - fraction.length;
  if (scale < 0) {
    const dropped = digits.slice(digits.length + scale);
    if (/[1-9]/.test(dropped)) return null; // a fraction remains
    digits = digits.slice(0, digits.length + scale) || '0';
    scale = 0;
  }
  const value = BigInt(digits) * 10n ** BigInt(scale);
  return sign === '-' ? -value : value;
}
