#!/usr/bin/env node
// `npm test`: install if needed, build and type-check every workspace, lint (typescript-eslint with
// type information, Prettier's check), install Chromium for the dashboard test when missing (as root: apt-get), then run every jest project (unit, integration on the real Postgres, end-to-end over HTTP with a real NATS).
// Extra arguments go to jest, e.g. `npm test -- test/e2e/auth`.
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { build, ensureChromium, ensureInstalled, ensureLintTools, ROOT, say, withDefaults } from './lib.mjs';

/** Like lib.mjs's `run`, without blocking: its output is kept and shown only if it fails. */
function runQuietly(command, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    child.once('error', reject);
    child.once('close', (status, signal) => {
      if (status === 0) return resolve();
      process.stderr.write(output);
      reject(new Error(`${command} ${args.join(' ')} failed (exit ${status ?? signal})`));
    });
  });
}

try {
  ensureInstalled();
  build();
  ensureLintTools();
  // The type check (tsc per workspace) and the lint (one eslint process) at once: two cores, a minute less.
  say('type-checking, and linting beside it');
  const typecheck = runQuietly(join(ROOT, 'node_modules', '.bin', 'turbo'), ['run', 'lint', '--output-logs=errors-only']);
  const lint = runQuietly(process.execPath, [join(ROOT, 'scripts', 'lint.mjs')]);
  const outcomes = await Promise.allSettled([typecheck, lint]);
  const failed = outcomes.find((o) => o.status === 'rejected');
  if (failed) throw failed.reason;
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
