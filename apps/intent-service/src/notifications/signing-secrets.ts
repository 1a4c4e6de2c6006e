import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { ENV } from '../config/env.js';
import { SIGNING_MASTER_SETTING, SigningSecretsRepository } from './signing-secrets.repository.js';

/**
 * The key used when SIGNING_SECRETS_KEY is not set (development): public, so it protects
 * nothing; the service warns at start. Any deployment sets its own key.
 */
export const DEVELOPMENT_SIGNING_SECRETS_KEY = createHash('sha256')
  .update('tradeinfra development signing-secrets key (public; set SIGNING_SECRETS_KEY)')
  .digest();

/** A short public fingerprint of a key, stored with what it encrypted (to tell which key did). */
export function keyId(key: Buffer): string {
  return createHash('sha256').update('tradeinfra signing-secrets key id').update(key).digest('hex').slice(0, 16);
}

/** `enc1:<key id>:<iv>:<ciphertext>:<tag>` (hex): AES-256-GCM of `plain` under `key`. */
export function sealValue(plain: Buffer, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(SIGNING_MASTER_SETTING));
  const ciphertext = Buffer.concat([cipher.update(plain), cipher.final()]);
  return ['enc1', keyId(key), iv.toString('hex'), ciphertext.toString('hex'), cipher.getAuthTag().toString('hex')].join(':');
}

/** The plain value of `sealValue`'s output; throws when the key is not the one that sealed it. */
export function openValue(sealed: string, key: Buffer): Buffer {
  const [tag0, id, iv, ciphertext, tag] = sealed.split(':');
  if (tag0 !== 'enc1' || !iv || !ciphertext || !tag) throw new Error('not a sealed value');
  if (id !== keyId(key)) throw new Error(`sealed with another key (id ${id})`);
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'hex'));
  decipher.setAAD(Buffer.from(SIGNING_MASTER_SETTING));
  decipher.setAuthTag(Buffer.from(tag, 'hex'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'hex')), decipher.final()]);
}

/**
 * Webhook signing secrets: one per tenant and version, derived from a master stored sealed
 * (AES-256-GCM under SIGNING_SECRETS_KEY) in `intent.settings`; the tables hold neither the master
 * nor a tenant's secret (docs/design/webhooks.md).
 */
@Injectable()
export class SigningSecrets implements OnApplicationBootstrap {
  private readonly logger = new Logger(SigningSecrets.name);
  private master: Buffer | null = null;
  /** Version look-ups in flight, shared by concurrent signatures of one tenant. */
  private readonly lookups = new Map<string, Promise<number>>();

  constructor(
    private readonly store: SigningSecretsRepository,
    @Inject(ENV) private readonly env: { SIGNING_SECRETS_KEY?: Buffer },
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const configured = this.env.SIGNING_SECRETS_KEY;
    const key = configured ?? DEVELOPMENT_SIGNING_SECRETS_KEY;
    if (!configured) {
      this.logger.warn('SIGNING_SECRETS_KEY is not set: webhook signing secrets are sealed with the public development key; set it outside development');
    }
    this.master = await this.store.openMaster(sealValue(randomBytes(32), key), (stored) => {
      if (/^[0-9a-f]{64}$/.test(stored)) {
        const master = Buffer.from(stored, 'hex');
        this.logger.log('signing master secret stored in plain text by an older release: sealed now');
        return { master, reseal: sealValue(master, key) };
      }
      if (stored.split(':')[1] === keyId(key)) return { master: openValue(stored, key), reseal: null };
      if (configured && stored.split(':')[1] === keyId(DEVELOPMENT_SIGNING_SECRETS_KEY)) {
        const master = openValue(stored, DEVELOPMENT_SIGNING_SECRETS_KEY);
        this.logger.log('signing master secret sealed with the development key: sealed again with SIGNING_SECRETS_KEY');
        return { master, reseal: sealValue(master, key) };
      }
      throw new Error(
        `the webhook signing master secret in intent.settings is sealed with another key (id ${stored.split(':')[1]}) than ` +
          `${configured ? `SIGNING_SECRETS_KEY (id ${keyId(key)})` : 'the development key (SIGNING_SECRETS_KEY is not set)'}: set SIGNING_SECRETS_KEY to the key it was sealed with`,
      );
    });
  }

  private derive(tenantId: string, version: number): string {
    if (!this.master) throw new Error('signing secrets not loaded');
    const label = version === 0 ? `notifications:${tenantId}` : `notifications:${tenantId}:v${version}`;
    return createHmac('sha256', this.master).update(label).digest('hex');
  }

  /** The tenant's current secret version (0 until its first rotation). */
  private version(tenantId: string): Promise<number> {
    const shared = this.lookups.get(tenantId);
    if (shared) return shared;
    const lookup: Promise<number> = this.store.version(tenantId).finally(() => {
      if (this.lookups.get(tenantId) === lookup) this.lookups.delete(tenantId);
    });
    this.lookups.set(tenantId, lookup);
    return lookup;
  }

  /** The tenant's signing secret (hex): what its webhooks verify signatures with. */
  async secretFor(tenantId: string): Promise<string> {
    return this.derive(tenantId, await this.version(tenantId));
  }

  /** Replaces the tenant's secret with a new one (the old one stops signing at once) and returns it. */
  async rotate(tenantId: string): Promise<string> {
    const version = await this.store.nextVersion(tenantId);
    this.lookups.delete(tenantId);
    return this.derive(tenantId, version);
  }

  /** `v1=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>` */
  async sign(tenantId: string, timestamp: number, body: string): Promise<string> {
    return `v1=${createHmac('sha256', await this.secretFor(tenantId))
      .update(`${timestamp}.${body}`)
      .digest('hex')}`;
  }
}
