import type { DataSource } from 'typeorm';

/**
 * Applies a service's pending migrations under a Postgres advisory lock (`lockKey`, one per
 * service), so replicas starting together migrate one after the other. Returns the names applied.
 */
export async function runMigrations(ds: DataSource, lockKey: number): Promise<string[]> {
  const runner = ds.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [lockKey]);
    const applied = await ds.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [lockKey]).catch(() => undefined);
    await runner.release();
  }
}
