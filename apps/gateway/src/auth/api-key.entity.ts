import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';

@Entity({ name: 'tenants', schema: 'gateway' })
export class TenantEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Index('tenants_name_key', { unique: true })
  @Column('text')
  name!: string;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt!: Date;
}

/** An API key: only its SHA-256 is stored; the key itself is shown once, at creation. */
@Entity({ name: 'api_keys', schema: 'gateway' })
export class ApiKeyEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Index('api_keys_tenant_idx')
  @Column('uuid', { name: 'tenant_id' })
  tenantId!: string;

  @ManyToOne(() => TenantEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id', foreignKeyConstraintName: 'api_keys_tenant_fk' })
  tenant?: TenantEntity;

  @Column('text')
  name!: string;

  /** The key's first characters, to recognise it in listings without storing it. */
  @Column('text')
  prefix!: string;

  @Index('api_keys_hash_key', { unique: true })
  @Column('text', { name: 'key_hash' })
  keyHash!: string;

  @Column('text', { array: true })
  scopes!: string[];

  /** Requests per second for this key; null: the gateway default. */
  @Column('integer', { name: 'rate_limit_per_second', nullable: true })
  rateLimitPerSecond!: number | null;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'revoked_at', nullable: true })
  revokedAt!: Date | null;
}
