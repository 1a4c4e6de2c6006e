import { textProblem, type FieldIssue } from '@tradeinfra/contracts';

/**
 * Text checks every input goes through before any schema sees it: a NUL character (Postgres
 * refuses it in text), an unpaired surrogate (not Unicode) or bytes that are not UTF-8 are a 400
 * naming where they are (`query.<name>`, a body field's path), on every route.
 */

const MAX_NAME = 128;

/**
 * Problems of the query string of `url` (the request target as sent): each name and value must
 * be percent-encoded UTF-8 (`%FF` is not) without NUL.
 */
export function queryIssues(url: string): FieldIssue[] {
  const start = url.indexOf('?');
  if (start < 0) return [];
  const issues: FieldIssue[] = [];
  for (const part of url.slice(start + 1).split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const rawName = eq < 0 ? part : part.slice(0, eq);
    const rawValue = eq < 0 ? '' : part.slice(eq + 1);
    const name = decode(rawName);
    const label = `query.${(name !== null && textProblem(name) === null ? name : rawName).slice(0, MAX_NAME)}`;
    for (const decoded of [name, decode(rawValue)]) {
      const problem = decoded === null ? 'is not valid percent-encoded UTF-8' : textProblem(decoded);
      if (problem) {
        issues.push({ path: label, message: problem });
        break;
      }
    }
  }
  return issues;
}

function decode(raw: string): string | null {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lenientUtf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** The body as text, or null when its bytes are not UTF-8. */
export function utf8(body: Buffer): string | null {
  try {
    return strictUtf8.decode(body);
  } catch {
    return null;
  }
}

/** The body decoded with U+FFFD in place of every byte that is not UTF-8 (to name the fields that hold them). */
export function lenientText(body: Buffer): string {
  return lenientUtf8.decode(body);
}

/**
 * Every string (and object key) of a parsed JSON value that is not storable text, by path
 * (`addresses.3`, `overrides.accounts.0xab…`); `mark` also flags strings holding it (U+FFFD, for
 * a body that was not UTF-8). At most `max` issues.
 */
export function jsonTextIssues(value: unknown, mark?: string, max = 20): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const check = (text: string, path: string) => {
    const problem = mark !== undefined && text.includes(mark) ? 'is not valid UTF-8' : textProblem(text);
    if (problem) issues.push({ path, message: problem });
  };
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length > 0 && issues.length < max) {
    const [node, path] = stack.pop()!;
    if (typeof node === 'string') check(node, path);
    else if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push([node[i], join(path, String(i))]);
    } else if (node !== null && typeof node === 'object') {
      const entries = Object.entries(node);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i]!;
        const childPath = join(path, key);
        check(key, childPath);
        stack.push([child, childPath]);
      }
    }
  }
  return issues.slice(0, max);
}

/** A path segment as it can be shown: NUL and unpaired surrogates written as `\uXXXX`. */
function join(base: string, key: string): string {
  const shown = key.slice(0, MAX_NAME).replace(/[\u0000\uD800-\uDFFF]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return base ? `${base}.${shown}` : shown;
}
