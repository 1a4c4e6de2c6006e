#!/usr/bin/env node
// The package registry reachable here serves only the Linux builds of packages that ship
// per-platform binaries (@swc/core-*, @turbo/*, @unrs/resolver-binding-*). `npm install` then
// leaves the other platforms out of package-lock.json, and `npm ci` refuses the lockfile as
// out of sync. This adds an entry for each such missing optional package, with the os/cpu its
// name states, so `npm ci` knows it and skips it on this platform. Idempotent; run it after
// `npm install` changes the lockfile: `node scripts/lockfile-platforms.mjs`.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './lib.mjs';

const OS = { darwin: 'darwin', win32: 'win32', windows: 'win32', linux: 'linux', android: 'android', freebsd: 'freebsd', openharmony: 'openharmony' };
const CPU = { arm64: 'arm64', x64: 'x64', 64: 'x64', ia32: 'ia32', arm: 'arm', ppc64: 'ppc64', s390x: 's390x', loong64: 'loong64', riscv64: 'riscv64' };

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const osIndex = parts.findIndex((p) => p in OS);
  const cpu = parts.slice(osIndex + 1).find((p) => p in CPU);
  return osIndex >= 0 && cpu ? { os: [OS[parts[osIndex]]], cpu: [CPU[cpu]] } : null;
}

const path = join(ROOT, 'package-lock.json');
const lock = JSON.parse(readFileSync(path, 'utf8'));
let added = 0;
for (const [key, entry] of Object.entries(lock.packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const depKey = `${key ? `${key}/` : ''}node_modules/${dep}`.replace(/^\//, '');
    const hoisted = `node_modules/${dep}`;
    if (lock.packages[depKey] || lock.packages[hoisted]) continue;
    const platform = platformOf(dep);
    if (!platform) continue;
    lock.packages[hoisted] = { version, ...(entry.dev ? { dev: true } : {}), optional: true, ...platform };
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: ${added} platform entr${added === 1 ? 'y' : 'ies'} added`);
