#!/usr/bin/env node
// `npm test`: install if needed, build and type-check every workspace, lint (typescript-eslint with
// type information, Prettier's check), install Chromium for the dashboard test when missing (as root: apt-get), then run every jest project (unit, integration on the real Postgres, end-to-end over HTTP with a real NATS).
// Extra arguments go to jest, e.g. `npm test -- test/e2e/auth`.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { build, ensureChromium, ensureInstalled, ensureLintTools, ROOT, run, say, withDefaults } from './lib.mjs';

try {
  ensureInstalled();
  build();
  say('type-checking');
  run(join(ROOT, 'node_modules', '.bin', 'turbo'), ['run', 'lint', '--output-logs=errors-only'], { quiet: true });
  ensureLintTools();
  run(process.execPath, [join(ROOT, 'scripts', 'lint.mjs')]);
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
