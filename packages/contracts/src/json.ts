import { parse as losslessParse, stringify as losslessStringify } from 'lossless-json';

/**
 * JSON with exact integers at any size, on every hop: an integer a double cannot hold is read as a
 * bigint, other numbers as numbers; text nested deeper than `maxDepth` is refused before parsing.
 * Ordinary bodies take `JSON.parse`'s fast path (docs/design/code-notes.md#exact-json).
 */
export function parseJson(text: string, maxDepth = MAX_JSON_DEPTH): unknown {
  if (nestsDeeperThan(text, maxDepth)) throw new JsonTooDeepError(maxDepth);
  if (!MAYBE_INEXACT.test(text)) return JSON.parse(text);
  return losslessParse(text, null, exactNumber);
}

/**
 * The deepest nesting of arrays and objects accepted in JSON from outside (HTTP bodies, answers
 * of chain nodes and webhooks): 64 levels, where no request or answer of ours needs more than 8.
 * Deeper text is refused before any parser sees it: `JSON.stringify`, lossless-json and zod
 * recurse, and 10,000 levels overflow the stack (docs/design/json-depth.md).
 */
export const MAX_JSON_DEPTH = 64;

/** The nesting accepted over NATS: what the edge let in (MAX_JSON_DEPTH) inside the envelopes services wrap it in. */
export const MAX_NATS_JSON_DEPTH = 2 * MAX_JSON_DEPTH;

/** A JSON text nests arrays and objects deeper than `maxDepth` levels; nothing of it was parsed. */
export class JsonTooDeepError extends Error {
  override readonly name = 'JsonTooDeepError';

  constructor(readonly maxDepth: number) {
    super(`JSON nests arrays and objects deeper than ${maxDepth} levels`);
  }
}

/** `JSON.parse` (numbers as doubles) behind the same depth check as {@link parseJson}. */
export function parsePlainJson(text: string, maxDepth = MAX_JSON_DEPTH): unknown {
  if (nestsDeeperThan(text, maxDepth)) throw new JsonTooDeepError(maxDepth);
  return JSON.parse(text);
}

/**
 * Whether `text` opens more than `maxDepth` arrays/objects without closing them (brackets in
 * strings not counted): one pass, no recursion, jumping with native searches over what cannot
 * change the depth (docs/design/json-depth.md). Text that is not JSON is left to the parser.
 */
export function nestsDeeperThan(text: string, maxDepth: number): boolean {
  let depth = 0;
  let run = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x5b) {
      if (c !== 0x22) {
        if (++run < 8) continue;
        STRUCTURAL.lastIndex = i;
        if (!STRUCTURAL.test(text)) return false; // nothing left that nests
        i = STRUCTURAL.lastIndex - 2; // the loop's i++ lands on it
        run = 0;
        continue;
      }
      i = stringEnd(text, i);
      if (i < 0) return false; // an unterminated string: not JSON
      run = 0;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return true;
      run = 0;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
      run = 0;
    }
  }
  return false;
}

/** A character that opens or closes an array, an object or a string. */
const STRUCTURAL = /["[\]{}]/g;

/** The index of the quote closing the string opened at `start` (one not escaped by an odd run of backslashes), or -1. */
function stringEnd(text: string, start: number): number {
  let end = start;
  for (;;) {
    end = text.indexOf('"', end + 1);
    if (end < 0) return -1;
    let before = end - 1;
    while (text.charCodeAt(before) === 0x5c) before--;
    if ((end - 1 - before) % 2 === 0) return end;
  }
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
