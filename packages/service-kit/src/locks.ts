/**
 * Every Postgres advisory lock the services take, in one place, so that no two uses share a
 * key by accident. Single keys (`pg_advisory_lock(key)`) and classes (`pg_advisory_lock(class,
 * id)`, one lock per chain id) are distinct key spaces in Postgres.
 */
export const ADVISORY_LOCKS = {
  /** Migrations of each service's schema: one migrator at a time. */
  intentMigrations: 7_310_000,
  gatewayMigrations: 7_320_000,
  payoutMigrations: 7_330_000,
  orderflowMigrations: 7_360_000,
  /** The intent outbox relay: one replica publishes at a time, in order. */
  outboxRelay: 7_310_001,
  /** Class, per chain id: the launch watcher's cursor. */
  launchWatcher: 7_340_000,
  /** Class, per chain id: the executor of launched intents. */
  executor: 7_340_001,
  /** Class, per hash of (source, chain, asset): a payout claiming its entries (transaction-level). */
  payoutClaim: 7_350_000,
  /** Class, per chain id: the orderflow service's chain loop (auction rounds, inclusion, crediting): one replica leads each chain. */
  orderflowChain: 7_360_001,
} as const;
