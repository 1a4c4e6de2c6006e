import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** The `intent.settings` key of the sealed signing master (also the AAD it is sealed with). */
export const SIGNING_MASTER_SETTING = 'notification_signing_secret';

/**
 * The only writer of `intent.settings` and `intent.signing_secrets`: the sealed webhook signing
 * master, and each tenant's secret version. What the values mean (sealing, deriving) is
 * SigningSecrets'; this class only stores them.
 */
@Injectable()
export class SigningSecretsRepository {
  constructor(@Inject(DataSource) private readonly db: DataSource) {}

  /**
   * In one transaction: stores `fresh` as the sealed master unless one is stored already (the
   * first replica's wins), hands the stored value, locked, to `open`, and stores `open`'s
   * `reseal` in its place when it is not null. Returns `open`'s master; nothing changes when
   * `open` throws.
   */
  async openMaster<T>(fresh: string, open: (stored: string) => { master: T; reseal: string | null }): Promise<T> {
    return this.db.transaction(async (m) => {
      await m.query(`INSERT INTO intent.settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING`, [SIGNING_MASTER_SETTING, fresh]);
      const [row] = (await m.query(`SELECT value FROM intent.settings WHERE key = $1 FOR UPDATE`, [SIGNING_MASTER_SETTING])) as { value: string }[];
      const { master, reseal } = open(row!.value);
      if (reseal !== null) await m.query(`UPDATE intent.settings SET value = $2 WHERE key = $1`, [SIGNING_MASTER_SETTING, reseal]);
      return master;
    });
  }

  /** The tenant's secret version (0 until its first rotation). */
  async version(tenantId: string): Promise<number> {
    const rows: { version: number }[] = await this.db.query(`SELECT version FROM intent.signing_secrets WHERE tenant_id = $1`, [tenantId]);
    return rows[0]?.version ?? 0;
  }

  /** Moves the tenant to its next secret version and returns it. */
  async nextVersion(tenantId: string): Promise<number> {
    const [row] = (await this.db.query(
      `INSERT INTO intent.signing_secrets AS s (tenant_id, version) VALUES ($1, 1)
       ON CONFLICT (tenant_id) DO UPDATE SET version = s.version + 1, rotated_at = now()
       RETURNING s.version`,
      [tenantId],
    )) as { version: number }[];
    return row!.version;
  }
}
