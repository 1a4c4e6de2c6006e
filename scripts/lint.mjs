#!/usr/bin/env node
// `npm run lint`: typescript-eslint with type information, dependency-cruiser's module rules
// (.dependency-cruiser.cjs: no import cycles, one-way layers), then Prettier's check, over every
// workspace's TypeScript. `npm run lint -- --fix` lets both rewrite what they can.
// The tools live in tools/lint with their own lockfile (type-aware linting needs the TypeScript 5
// JS API; the workspaces build with the TypeScript 7 native compiler, which has none).
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { allOrFirstFailure, ensureLintTools, ROOT, run, runQuietly, say } from './lib.mjs';

/** What Prettier formats: every workspace's TypeScript. */
const FORMATTED = ['apps/*/src/**/*.ts', 'packages/*/src/**/*.ts', 'test/**/*.ts', 'bench/src/**/*.ts'];

/** What dependency-cruiser checks: every app's and package's production sources. */
const SOURCE_DIRS = ['apps', 'packages'].flatMap((top) =>
  readdirSync(join(ROOT, top))
    .map((name) => `${top}/${name}/src`)
    .filter((dir) => existsSync(join(ROOT, dir))),
);

const bin = (name) => join(ROOT, 'tools', 'lint', 'node_modules', '.bin', name);
const ESLINT = ['--max-warnings=0', '.'];
const DEPCRUISE = ['--config', '.dependency-cruiser.cjs', '--output-type', 'err', ...SOURCE_DIRS];

/**
 * The three checks at once (none writes), each one's output shown only if it fails: ESLint is
 * single-threaded and the longest, so the others run on the other core. `npm test` runs this
 * beside the type check. The tools must be installed (ensureLintTools).
 */
export async function lintChecks() {
  await allOrFirstFailure([
    runQuietly(bin('eslint'), ESLINT),
    runQuietly(bin('depcruise'), DEPCRUISE),
    runQuietly(bin('prettier'), ['--check', '--log-level=warn', ...FORMATTED]),
  ]);
}

export const LINT_HINT = 'fix with `npm run lint -- --fix` (formatting and fixable rules), then by hand for the rest';

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const fix = process.argv.includes('--fix');
  try {
    ensureLintTools();
    if (fix) {
      // ESLint and Prettier both rewrite files: one after the other.
      say('linting (eslint --fix)');
      run(bin('eslint'), [...ESLINT, '--fix']);
      say('checking module dependencies (dependency-cruiser: no cycles, one-way layers)');
      run(bin('depcruise'), DEPCRUISE);
      say('formatting (prettier --write)');
      run(bin('prettier'), ['--write', '--log-level=warn', ...FORMATTED]);
    } else {
      say('linting (eslint), checking module dependencies (dependency-cruiser: no cycles, one-way layers) and formatting (prettier --check), at once');
      await lintChecks();
    }
  } catch (err) {
    say(err.message);
    say(LINT_HINT);
    process.exit(1);
  }
}

