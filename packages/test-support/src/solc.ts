import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** The monorepo root (this file is packages/test-support/src/solc.ts). */
const ROOT = join(import.meta.dirname, '..', '..', '..');
const require = createRequire(join(ROOT, 'package.json'));

/** Compiler outputs of this install: `npm ci` empties node_modules, and with it this cache. */
const CACHE_DIR = join(ROOT, 'node_modules', '.cache', 'tradeinfra-solc');

export type SolcOutput = { contracts: Record<string, Record<string, any>>; errors?: Array<{ severity: string; formattedMessage: string }> };

function findImport(path: string): { contents: string } | { error: string } {
  try {
    return { contents: readFileSync(require.resolve(path), 'utf8') };
  } catch (err) {
    return { error: `not found: ${path} (${(err as Error).message})` };
  }
}

const version = (pkg: string): string => (JSON.parse(readFileSync(require.resolve(`${pkg}/package.json`), 'utf8')) as { version: string }).version;

/**
 * Compiles a standard-JSON input with the installed solc (wasm, seconds of CPU), imports from
 * node_modules. An input compiled before on this install (same solc and OpenZeppelin) is read
 * back from node_modules/.cache: every test file needs the same contracts.
 */
export function compileSolidityCached(input: object): SolcOutput {
  const key = createHash('sha256')
    .update(`solc ${version('solc')} openzeppelin ${version('@openzeppelin/contracts')}\n`)
    .update(JSON.stringify(input))
    .digest('hex');
  const file = join(CACHE_DIR, `${key}.json`);
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as SolcOutput;
  } catch {
    // not compiled yet on this install
  }
  const solc = require('solc') as { compile(input: string, callbacks: { import: typeof findImport }): string };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImport })) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length) throw new Error(`solc: ${errors.map((e) => e.formattedMessage).join('\n')}`);
  // Written whole, then renamed: a test file reading it at the same time sees all of it or none.
  mkdirSync(CACHE_DIR, { recursive: true });
  const partial = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  writeFileSync(partial, JSON.stringify(output));
  renameSync(partial, file);
  return output;
}
