import { parse as losslessParse } from 'lossless-json';

/**
 * Request bodies: JSON with every bigint written as a decimal string (the API takes amounts as
 * decimal strings; simulation quantities accept them too), so money never passes through a
 * float.
 */
export function stringifyBody(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

/**
 * The ledger's money fields, which the payout routes write as JSON numbers rendered from the
 * exact decimal (`"amount": 0.015`, `"claimable": 123456789.123456789012345678`).
 */
const MONEY_KEYS = new Set(['amount', 'pending', 'claimable', 'paid', 'estimatedUsd']);

/** A JSON number token, before it is decided what it becomes. */
class NumberToken {
  constructor(readonly text: string) {}
}

/**
 * Parses an answer of the payout routes exactly: a number under a money key (`amount`,
 * `pending`, `claimable`, `paid`, `estimatedUsd`) becomes its decimal string as sent (no float
 * ever rounds it); an integer beyond 2^53-1 elsewhere becomes a bigint; every other number a
 * number.
 */
export function parseExact(text: string): unknown {
  return losslessParse(
    text,
    (key, value) => {
      if (!(value instanceof NumberToken)) return value;
      if (MONEY_KEYS.has(key)) return decimalString(value.text);
      return plainNumber(value.text);
    },
    (token) => new NumberToken(token),
  );
}

/** A JSON number token as a plain decimal string (exponents expanded): `1.5e3` → `"1500"`. */
export function decimalString(token: string): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(token);
  if (!match) return token;
  const [, sign, whole, fraction = '', exponentText] = match;
  if (exponentText === undefined) return token;
  const exponent = Number(exponentText);
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > 4096) return token;
  let digits = whole! + fraction;
  let point = whole!.length + exponent;
  if (point <= 0) {
    digits = '0'.repeat(1 - point) + digits;
    point = 1;
  }
  let integerPart = point >= digits.length ? digits + '0'.repeat(point - digits.length) : digits.slice(0, point);
  const fractionPart = point >= digits.length ? '' : digits.slice(point).replace(/0+$/, '');
  integerPart = integerPart.replace(/^0+(?=\d)/, '');
  const out = fractionPart ? `${integerPart}.${fractionPart}` : integerPart;
  return out === '0' ? '0' : sign + out;
}

function plainNumber(token: string): number | bigint {
  if (/^-?\d+$/.test(token)) {
    const n = BigInt(token);
    if (n > BigInt(Number.MAX_SAFE_INTEGER) || n < -BigInt(Number.MAX_SAFE_INTEGER)) return n;
  }
  return Number(token);
}
