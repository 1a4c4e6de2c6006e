import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { connect } from '@nats-io/transport-node';
import { decodeRpcReply, encodeRpcRequest, PAYOUT_SOURCE_REGISTER } from '@tradeinfra/contracts';
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
  const nc = await connect({ servers: env.NATS_URL, name: 'source-cli' });
  try {
    const msg = await nc.request(PAYOUT_SOURCE_REGISTER, encodeRpcRequest(PAYOUT_SOURCE_REGISTER, { id: values.id, tenantId }, randomUUID()), {
      timeout: 5_000,
    });
    const reply = decodeRpcReply<{ id: string }>(msg.string());
    if (!reply.ok) throw new Error(reply.error.message);
    process.stdout.write(`${reply.value.id} registered to tenant ${values.tenant}\n`);
  } finally {
    await nc.close();
  }
}

main(process.argv.slice(2)).catch((err: Error & { usage?: boolean }) => {
  process.stderr.write(`source: ${err.message}\n${err.usage || err.name === 'TypeError' ? `${USAGE}\n` : ''}`);
  process.exit(err.usage ? 64 : 1);
});
