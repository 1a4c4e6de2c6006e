#!/usr/bin/env node
// `npm run lint`: typescript-eslint with type information, dependency-cruiser's module rules
// (.dependency-cruiser.cjs: no import cycles, one-way layers), then Prettier's check, over every
// workspace's TypeScript. `npm run lint -- --fix` lets both rewrite what they can.
// The tools live in tools/lint with their own lockfile (type-aware linting needs the TypeScript 5
// JS API; the workspaces build with the TypeScript 7 native compiler, which has none).
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ensureLintTools, ROOT, run, say } from './lib.mjs';

/** What Prettier formats: every workspace's TypeScript. */
const FORMATTED = ['apps/*/src/**/*.ts', 'packages/*/src/**/*.ts', 'test/**/*.ts', 'bench/src/**/*.ts'];

/** What dependency-cruiser checks: every app's and package's production sources. */
const SOURCE_DIRS = ['apps', 'packages'].flatMap((top) =>
  readdirSync(join(ROOT, top))
    .map((name) => `${top}/${name}/src`)
    .filter((dir) => existsSync(join(ROOT, dir))),
);

const fix = process.argv.includes('--fix');
try {
  ensureLintTools();
  const bin = (name) => join(ROOT, 'tools', 'lint', 'node_modules', '.bin', name);
  say(fix ? 'linting (eslint --fix)' : 'linting (eslint)');
  run(bin('eslint'), ['--max-warnings=0', ...(fix ? ['--fix'] : []), '.']);
  say('checking module dependencies (dependency-cruiser: no cycles, one-way layers)');
  run(bin('depcruise'), ['--config', '.dependency-cruiser.cjs', '--output-type', 'err', ...SOURCE_DIRS]);
  say(fix ? 'formatting (prettier --write)' : 'checking formatting (prettier --check)');
  run(bin('prettier'), [fix ? '--write' : '--check', '--log-level=warn', ...FORMATTED]);
} catch (err) {
  say(err.message);
  say('fix with `npm run lint -- --fix` (formatting and fixable rules), then by hand for the rest');
  process.exit(1);
}
