import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { NATS_ROUTES } from '@tradeinfra/contracts';
import { connectNats, routeRequest, ServiceReplyError } from '@tradeinfra/service-kit';
import { ApiKeysRepository } from '../auth/api-keys.repository.js';
import { loadEnv } from '../config/env.js';
import { createDataSource } from '../database/data-source.js';

const USAGE = 'usage: source create --id SOURCE_ID --tenant TENANT_NAME   (needs the payout service running)';

/** Registers a payout source to a tenant: the tenant is looked up here, the source kept by the payout service. */
async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  const { values } = parseArgs({ args: rest, options: { id: { type: 'string' }, tenant: { type: 'string' } }, strict: true });
  if (command !== 'create' || !values.id || !values.tenant) throw Object.assign(new Error('--id and --tenant are required'), { usage: true });
  const env = loadEnv();
  const ds = await createDataSource({ ...env, GATEWAY_DB_POOL_SIZE: 1 }).initialize();
  let tenantId: string | null;
  try {
    tenantId = await new ApiKeysRepository(ds).findTenantByName(values.tenant);
  } finally {
    await ds.destroy();
  }
  if (!tenantId) throw new Error(`tenant "${values.tenant}" not found (create one with apikey:create --tenant)`);
  const nc = await connectNats(env, 'source-cli');
  try {
    const registered = await routeRequest(nc, NATS_ROUTES.payoutSourceRegister, { id: values.id, tenantId }, { timeoutMs: 5_000 }).catch((err: unknown) => {
      throw err instanceof ServiceReplyError ? new Error(err.payload.message) : err;
    });
    process.stdout.write(`${registered.id} registered to tenant ${values.tenant}\n`);
  } finally {
    await nc.close();
  }
}

main(process.argv.slice(2)).catch((err: Error & { usage?: boolean }) => {
  process.stderr.write(`source: ${err.message}\n${err.usage || err.name === 'TypeError' ? `${USAGE}\n` : ''}`);
  process.exit(err.usage ? 64 : 1);
});
