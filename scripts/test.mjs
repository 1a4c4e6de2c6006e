#!/usr/bin/env node
// `npm test`: install if needed, build and type-check every workspace, lint (typescript-eslint with
// type information, Prettier's check), install Chromium for the dashboard test when missing (as root: apt-get), then run every jest project (unit, integration on the real Postgres, end-to-end over HTTP with a real NATS).
// Extra arguments go to jest, e.g. `npm test -- test/e2e/auth`.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import {
  allOrFirstFailure,
  buildAsync,
  ensureChromium,
  ensureInstalled,
  ensureLintToolsAsync,
  ROOT,
  runQuietly,
  say,
  withDefaults,
} from './lib.mjs';
import { LINT_HINT, lintChecks } from './lint.mjs';

try {
  ensureInstalled();
  // The build beside the lint tools' install; then the type check (tsc per workspace), ESLint,
  // dependency-cruiser and Prettier all at once (ESLint, the longest, on one core; the rest beside it).
  // On a fresh clone here that saved 15-20 s against the build, the install and the checks one after the other.
  await allOrFirstFailure([buildAsync(), ensureLintToolsAsync()]);
  say('type-checking and linting (eslint, dependency-cruiser, prettier), at once');
  const typecheck = runQuietly(join(ROOT, 'node_modules', '.bin', 'turbo'), ['run', 'lint', '--output-logs=errors-only']);
  await allOrFirstFailure([typecheck, lintChecks().catch((err) => Promise.reject(new Error(`${err.message}; ${LINT_HINT}`)))]);
  ensureChromium();
} catch (err) {
  say(err.message);
  process.exit(1);
}
const jest = spawnSync(
  process.execPath,
  ['--experimental-vm-modules', '--no-warnings=ExperimentalWarning', join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js'), '--maxWorkers=2', ...process.argv.slice(2)],
  { cwd: ROOT, stdio: 'inherit', env: withDefaults() },
);
process.exit(jest.status ?? 1);
