import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { TestDatabase } from '@tradeinfra/test-support';
import type { DataSource } from 'typeorm';
import { DEVELOPMENT_SIGNING_SECRETS_KEY, keyId, SigningSecrets } from '../notifications/signing-secrets.js';
import { SigningSecretsRepository } from '../notifications/signing-secrets.repository.js';
import { migratedDatabase } from './harness.js';

/** Signing secrets on a real database: sealed master, legacy rows kept working, rotation per tenant. */
describe('SigningSecrets', () => {
  let db: TestDatabase;
  let ds: DataSource;
  const KEY = randomBytes(32);

  beforeAll(async () => {
    Logger.overrideLogger(false);
    ({ db, ds } = await migratedDatabase());
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });
  beforeEach(async () => {
    await ds.query(`DELETE FROM intent.settings`);
    await ds.query(`DELETE FROM intent.signing_secrets`);
  });

  const start = async (key: Buffer | undefined) => {
    const secrets = new SigningSecrets(new SigningSecretsRepository(ds), { SIGNING_SECRETS_KEY: key });
    await secrets.onApplicationBootstrap();
    return secrets;
  };
  /** Every text a reader of the service's tables sees. */
  const tableText = async () => JSON.stringify([await ds.query(`SELECT * FROM intent.settings`), await ds.query(`SELECT * FROM intent.signing_secrets`)]);

  it('keeps neither the master nor any tenant secret readable in the tables', async () => {
    const secrets = await start(KEY);
    const tenant = randomUUID();
    const secret = await secrets.secretFor(tenant);
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    const [row] = (await ds.query(`SELECT value FROM intent.settings`)) as { value: string }[];
    expect(row!.value).toMatch(new RegExp(`^enc1:${keyId(KEY)}:`));
    // Whatever is stored, used as a master, does not give the tenant's secret.
    for (const candidate of [row!.value, ...row!.value.split(':')]) {
      expect(createHmac('sha256', Buffer.from(candidate, 'hex')).update(`notifications:${tenant}`).digest('hex')).not.toBe(secret);
    }
    await secrets.rotate(tenant);
    expect(await tableText()).not.toContain(await secrets.secretFor(tenant));
    expect(await tableText()).not.toContain(secret);
  });

  it('every replica and restart derives the same secrets', async () => {
    const tenant = randomUUID();
    const [a, b] = await Promise.all([start(KEY), start(KEY)]);
    expect(await a.secretFor(tenant)).toBe(await b.secretFor(tenant));
    expect(await (await start(KEY)).secretFor(tenant)).toBe(await a.secretFor(tenant));
    expect(await a.secretFor(randomUUID())).not.toBe(await a.secretFor(tenant));
  });

  it('a master stored in plain text by an older release keeps every tenant’s secret, and is sealed at start', async () => {
    const legacyMaster = randomBytes(32);
    await ds.query(`INSERT INTO intent.settings (key, value) VALUES ('notification_signing_secret', $1)`, [legacyMaster.toString('hex')]);
    const tenant = randomUUID();
    const before = createHmac('sha256', legacyMaster).update(`notifications:${tenant}`).digest('hex');
    const secrets = await start(KEY);
    expect(await secrets.secretFor(tenant)).toBe(before);
    expect(await tableText()).not.toContain(legacyMaster.toString('hex'));
    expect(await (await start(KEY)).secretFor(tenant)).toBe(before);
  });

  it('works out of the box without SIGNING_SECRETS_KEY (development key), and moves to a key set later', async () => {
    const tenant = randomUUID();
    const dev = await start(undefined);
    const secret = await dev.secretFor(tenant);
    const [row] = (await ds.query(`SELECT value FROM intent.settings`)) as { value: string }[];
    expect(row!.value.split(':')[1]).toBe(keyId(DEVELOPMENT_SIGNING_SECRETS_KEY));
    const keyed = await start(KEY);
    expect(await keyed.secretFor(tenant)).toBe(secret);
    const [resealed] = (await ds.query(`SELECT value FROM intent.settings`)) as { value: string }[];
    expect(resealed!.value.split(':')[1]).toBe(keyId(KEY));
  });

  it('refuses to start with another key than the one that sealed the master, saying so', async () => {
    await start(KEY);
    const other = randomBytes(32);
    await expect(start(other)).rejects.toThrow(
      `sealed with another key (id ${keyId(KEY)}) than SIGNING_SECRETS_KEY (id ${keyId(other)}): set SIGNING_SECRETS_KEY to the key it was sealed with`,
    );
    await expect(start(undefined)).rejects.toThrow(/the development key \(SIGNING_SECRETS_KEY is not set\)/);
  });

  it('rotation gives the tenant a new secret at once (other tenants keep theirs), on every replica', async () => {
    const [a, b] = [await start(KEY), await start(KEY)];
    const tenant = randomUUID();
    const other = randomUUID();
    const [old, otherOld] = [await a.secretFor(tenant), await a.secretFor(other)];
    const rotated = await a.rotate(tenant);
    expect(rotated).not.toBe(old);
    expect(await a.secretFor(tenant)).toBe(rotated);
    expect(await b.secretFor(tenant)).toBe(rotated);
    expect(await b.secretFor(other)).toBe(otherOld);
    const again = await b.rotate(tenant);
    expect(new Set([old, rotated, again]).size).toBe(3);
    expect(await a.sign(tenant, 1, 'body')).toBe(`v1=${createHmac('sha256', again).update('1.body').digest('hex')}`);
  });
});
