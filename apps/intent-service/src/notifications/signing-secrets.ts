import { createHmac, randomBytes } from 'node:crypto';
import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';

const MASTER_KEY = 'notification_signing_secret';

/**
 * Notification signatures: one secret per tenant, derived from a master secret that the first
 * replica generates and stores in `intent.settings` (so every replica, and every restart, signs
 * with the same keys; nothing secret lives in the repo or the environment).
 */
@Injectable()
export class SigningSecrets implements OnApplicationBootstrap {
  private master: Buffer | null = null;

  constructor(@Inject(DataSource) private readonly db: DataSource) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.db.query(`INSERT INTO intent.settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING`, [
      MASTER_KEY,
      randomBytes(32).toString('hex'),
    ]);
    const [row] = await this.db.query(`SELECT value FROM intent.settings WHERE key = $1`, [MASTER_KEY]);
    this.master = Buffer.from((row as { value: string }).value, 'hex');
  }

  /** The tenant's signing secret (hex): what its webhook verifies signatures with. */
  secretFor(tenantId: string): string {
    if (!this.master) throw new Error('signing secrets not loaded');
    return createHmac('sha256', this.master).update(`notifications:${tenantId}`).digest('hex');
  }

  /** `v1=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>` */
  sign(tenantId: string, timestamp: number, body: string): string {
    return `v1=${createHmac('sha256', this.secretFor(tenantId)).update(`${timestamp}.${body}`).digest('hex')}`;
  }
}
