import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { ApiKeysRepository } from '../auth/api-keys.repository.js';
import { ApiKeyAdminError, ApiKeysService } from '../auth/api-keys.service.js';
import { isScope, SCOPES, type Scope } from '../auth/scopes.js';
import { loadEnv } from '../config/env.js';
import { createDataSource } from '../database/data-source.js';

const USAGE = `usage:
  apikey create --name NAME [--scopes a,b] [--tenant T] [--rate-limit N]   prints the new key, nothing else
  apikey revoke --key KEY
  apikey limit --key KEY --rate-limit N|default                          a key's own requests per second, or the default again
scopes: ${SCOPES.join(', ')} (default: all but admin)`;

class UsageError extends Error {}

function parseScopes(value: string | undefined): Scope[] | undefined {
  if (value === undefined) return undefined;
  const scopes = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = scopes.filter((s) => !isScope(s));
  if (scopes.length === 0 || unknown.length > 0) {
    throw new UsageError(`unknown scope(s): ${unknown.join(', ') || '(none given)'}; valid: ${SCOPES.join(', ')}`);
  }
  return scopes as Scope[];
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      name: { type: 'string' },
      scopes: { type: 'string' },
      tenant: { type: 'string' },
      'rate-limit': { type: 'string' },
      key: { type: 'string' },
    },
    strict: true,
  });
  if (command !== 'create' && command !== 'revoke' && command !== 'limit') throw new UsageError(`unknown command ${command ?? '(none)'}`);
  const rate = values['rate-limit'];
  const validRate = (r: string) => /^[1-9][0-9]{0,6}$/.test(r);
  if (rate !== undefined && !validRate(rate) && !(command === 'limit' && rate === 'default')) {
    throw new UsageError(`--rate-limit must be a positive integer (requests per second)${command === 'limit' ? ', or default' : ''}`);
  }

  const env = loadEnv();
  const ds = await createDataSource({ ...env, GATEWAY_DB_POOL_SIZE: 1 }).initialize();
  const service = new ApiKeysService(new ApiKeysRepository(ds), { API_KEY_CACHE_TTL_MS: 0 });
  try {
    if (command === 'create') {
      if (!values.name?.trim()) throw new UsageError('--name is required');
      const { key } = await service.create({
        name: values.name.trim(),
        scopes: parseScopes(values.scopes),
        tenant: values.tenant?.trim() || undefined,
        rateLimitPerSecond: rate === undefined ? null : Number(rate),
      });
      process.stdout.write(`${key}\n`);
    } else if (command === 'limit') {
      if (!values.key) throw new UsageError('--key is required');
      if (rate === undefined) throw new UsageError('--rate-limit is required (requests per second, or default)');
      const limit = rate === 'default' ? null : Number(rate);
      if (!(await service.setRateLimit(values.key.trim(), limit))) throw new ApiKeyAdminError('no active key matches');
      process.stderr.write(`rate limit ${limit === null ? 'back to the default' : `${limit}/s`}; every gateway applies it within API_KEY_CACHE_TTL_MS\n`);
    } else {
      if (!values.key) throw new UsageError('--key is required');
      if (!(await service.revoke(values.key.trim()))) throw new ApiKeyAdminError('no active key matches');
      process.stderr.write('revoked; every gateway stops accepting it within API_KEY_CACHE_TTL_MS\n');
    }
  } finally {
    await ds.destroy();
  }
}

main(process.argv.slice(2)).catch((err: Error) => {
  const usage = err instanceof UsageError || err.name === 'TypeError';
  process.stderr.write(`apikey: ${err.message}\n${usage ? `${USAGE}\n` : ''}`);
  process.exit(usage ? 64 : 1);
});
