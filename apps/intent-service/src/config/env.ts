import { DEFAULT_CHAIN_IDS, DEX_DEFAULTS } from '@tradeinfra/contracts';
import { CHAIN_RPC_ENV, envInt, HEALTH_ENV, loadServiceEnv, LOG_ENV, NATS_ENV, POSTGRES_ENV, urlList } from '@tradeinfra/service-kit';
import { z } from 'zod';

const positiveMs = envInt(1);

const EnvSchema = z.object({
  ...NATS_ENV,
  ...HEALTH_ENV,
  ...POSTGRES_ENV,
  /** RPC_MAX_LAG_BLOCKS, RPC_CHECK_INTERVAL_MS, RPC_CHECK_TIMEOUT_MS: how a chain's several endpoints are chosen between. */
  ...CHAIN_RPC_ENV,
  INTENT_DB_USER: z.string().min(1).default('intent_svc'),
  INTENT_DB_PASSWORD: z.string().optional(),
  INTENT_DB_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(20),
  /** Comma-separated chain ids intents may target. */
  CHAIN_IDS: z
    .string()
    .default(DEFAULT_CHAIN_IDS.join(','))
    .transform((v, ctx) => {
      const ids = v.split(',').map((s) => Number(s.trim()));
      if (ids.length === 0 || ids.some((id) => !Number.isSafeInteger(id) || id < 1)) {
        ctx.addIssue({ code: 'custom', message: 'must be a comma-separated list of positive integers' });
        return z.NEVER;
      }
      return ids;
    }),
  /** How often the expiry sweeper runs; a pending intent past its expiry is expired within this. */
  EXPIRY_SWEEP_INTERVAL_MS: positiveMs.default(1000),
  /** How often the outbox relay polls when nothing woke it. */
  OUTBOX_POLL_INTERVAL_MS: positiveMs.default(500),
  /** Max age of events kept in the INTENT_EVENTS stream. */
  INTENT_EVENTS_MAX_AGE_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .default(24 * 7),
  IDEMPOTENCY_TTL_HOURS: z.coerce.number().int().min(1).default(24),
  /** Accept http:// notification webhooks (local development); default https only. */
  WEBHOOK_ALLOW_HTTP: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  /** Deliver to webhooks on loopback/private addresses (local development); default refused. */
  WEBHOOK_ALLOW_PRIVATE: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  /** Bound on one webhook delivery attempt. */
  NOTIFY_TIMEOUT_MS: positiveMs.default(5_000),
  /** Attempts per notification before it is given up (retries back off up to 5 minutes). */
  NOTIFY_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(1000).default(25),
  /** Delay before the first retry of a notification; each further retry waits twice as long (at most 5 minutes). */
  NOTIFY_BACKOFF_MS: positiveMs.max(300_000).default(1_000),
  /** How often the launch watcher asks each chain for new blocks (at least once per block time). */
  LAUNCH_POLL_INTERVAL_MS: positiveMs.default(1_000),
  /** Most blocks read per poll (catching up after downtime goes in steps of this). */
  LAUNCH_MAX_BLOCK_RANGE: z.coerce.number().int().min(1).max(10_000).default(500),
  /** Deadline of the signing webhook's answer. */
  SIGNER_TIMEOUT_MS: positiveMs.default(200),
  /** Priority fee (wei per gas) of a buy whose intent sets no gasTip. */
  EXECUTION_DEFAULT_GAS_TIP_WEI: z
    .string()
    .regex(/^[0-9]{1,30}$/, 'must be a decimal number of wei')
    .default('1000000000'),
  /** A submitted buy still unresolved this long after its expiry (node unreachable) ends in `error`. */
  EXECUTION_OUTCOME_GRACE_MINUTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 60)
    .default(10),
  /** Most intents of one token checked and submitted in one round. */
  EXECUTION_BATCH: z.coerce.number().int().min(1).max(10_000).default(2_000),
  /** Where the mempool is followed: most waiting senders whose balances (and counts) are read at each head ahead of a round; 0: none. */
  EXECUTION_PREFETCH_SENDERS: z.coerce.number().int().min(0).max(10_000).default(500),
  /** Private key that signs eth_sendBundle requests to relays (their reputation system); random per process when unset. */
  RELAY_AUTH_KEY: z
    .string()
    .regex(/^(0x)?[0-9a-fA-F]{64}$/, 'must be a 32-byte hex private key')
    .optional(),
  /**
   * 32-byte hex key sealing the webhook signing master secret stored in the database; unset: a
   * public development key (the service warns).
   */
  SIGNING_SECRETS_KEY: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string()
      .regex(/^(0x)?[0-9a-fA-F]{64}$/, 'must be a 32-byte hex key (e.g. openssl rand -hex 32)')
      .transform((v) => Buffer.from(v.replace(/^0x/, ''), 'hex'))
      .optional(),
  ),
  /**
   * Tests only: the process kills itself (SIGKILL) at that point of its first exit round:
   * `exit-after-mark` (sells marked submitted, not sent), `exit-after-send` (sent, nothing after recorded).
   */
  INTENT_FAILPOINT: z.enum(['exit-after-mark', 'exit-after-send']).optional(),
  /** LOG_FORMAT, and LOG_REQUESTS: log every NATS request (subject, x-request-id, outcome, duration). */
  ...LOG_ENV,
});

export interface WatchedChain {
  chainId: number;
  /** The chain's JSON-RPC endpoints (`RPC_URL_<id>`, comma-separated): reads go to a live one near the highest head, sends to all. */
  rpcUrls: string[];
  /** WebSocket endpoints (`WS_URL_<id>`, comma-separated) for newHeads and pending transactions, each followed; polling remains. Empty: none. */
  wsUrls: string[];
  factory: string;
  wrappedNative: string;
  /** Router the buys go through; null: launches are recorded but not executed. */
  router: string | null;
  /** Native/stable pair on the same DEX pricing `minLiquidity`; null: no price source. */
  stablePair: string | null;
  /** Development signer keys (local chains only). */
  devSignerKeys: string[];
  /** eth_sendBundle relays; empty: eth_sendRawTransaction on the chain's own node. */
  relays: string[];
  /**
   * How launches are seen before they are mined (`MEMPOOL_LAUNCHES_<id>`): `ws` follows the node's
   * pending transactions over WS_URL_<id> (the default where it is set), `poll` polls a pending-
   * transaction filter over RPC_URL_<id>, `off` (the default without a WebSocket) waits for the block.
   */
  mempool: 'ws' | 'poll' | 'off';
  /** The IntentExecutor contract (`EXECUTOR_<id>`): wallet intents are accepted only where it is set. */
  executor: string | null;
  /** The relayer's key (`RELAYER_KEY_<id>`): sends wallet intents' executor calls and pays their gas. */
  relayerKey: string | null;
  /**
   * How the senders' pending nonces are read (`PENDING_NONCES_<id>`): `sender` asks the node for
   * each sender's `pending` transaction count; `block` reads one pending block and each sender's
   * `latest` count (for nodes that rebuild the pending block on every `pending` read, as hardhat
   * does: 100 senders behind a pending launch then cost 100 block builds); `auto` (the default)
   * picks `block` for hardhat and `sender` for every other node.
   */
  pendingNonces: 'sender' | 'block' | 'auto';
  /**
   * Whether the node handles a JSON-RPC batch's calls in their order (`ORDERED_BATCHES_<id>`):
   * `yes` sends a round's buys as one batch, `no` one after the other (each answered before the
   * next is sent: the order cost); `auto` (the default) says yes for geth, which runs a batch's
   * calls one after the other, and no for every other node (hardhat, for one, answers a batch's
   * calls concurrently, so they reach its pool in any order).
   */
  orderedBatches: 'yes' | 'no' | 'auto';
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const PRIVATE_KEY = /^(0x)?[0-9a-fA-F]{64}$/;

/** The chains the launch watcher follows: configured chains with an RPC_URL_<id> and a known DEX. */
function watchedChains(chainIds: number[], source: NodeJS.ProcessEnv, problems: string[]): WatchedChain[] {
  const chains: WatchedChain[] = [];
  const address = (name: string, fallback: string | undefined): string | null => {
    const value = source[name] ?? fallback;
    if (value === undefined || value === '') return null;
    if (!ADDRESS.test(value)) {
      problems.push(`  ${name}: must be a 0x-prefixed 20-byte hex address`);
      return null;
    }
    return value.toLowerCase();
  };
  for (const chainId of chainIds) {
    const rpcUrls = urlList(`RPC_URL_${chainId}`, source[`RPC_URL_${chainId}`], ['http:', 'https:'], problems);
    const defaults = DEX_DEFAULTS[chainId];
    const factory = address(`DEX_FACTORY_${chainId}`, defaults?.factory);
    const wrappedNative = address(`WRAPPED_NATIVE_${chainId}`, defaults?.wrappedNative);
    const router = address(`DEX_ROUTER_${chainId}`, defaults?.router);
    const stablePair = address(`STABLE_PAIR_${chainId}`, defaults?.stablePair);
    const devSignerKeys = (source[`DEV_SIGNER_KEYS_${chainId}`] ?? '')
      .split(',')
      .map((k) => k.trim())
      .filter(Boolean);
    if (devSignerKeys.some((k) => !PRIVATE_KEY.test(k))) problems.push(`  DEV_SIGNER_KEYS_${chainId}: must be comma-separated 32-byte hex private keys`);
    if (devSignerKeys.length > 0 && DEFAULT_CHAIN_IDS.includes(chainId)) {
      problems.push(`  DEV_SIGNER_KEYS_${chainId}: a development signer is for local chains only, never chain ${chainId}`);
    }
    const relays = (source[`RELAY_URLS_${chainId}`] ?? '')
      .split(',')
      .map((u) => u.trim())
      .filter(Boolean);
    for (const relay of relays) {
      if (!URL.canParse(relay) || !/^https?:$/.test(new URL(relay).protocol)) problems.push(`  RELAY_URLS_${chainId}: ${relay} is not an http(s) URL`);
    }
    const wsUrls = urlList(`WS_URL_${chainId}`, source[`WS_URL_${chainId}`], ['ws:', 'wss:'], problems);
    const wsUrl = wsUrls.length > 0;
    const mempool = source[`MEMPOOL_LAUNCHES_${chainId}`] || (wsUrl ? 'ws' : 'off');
    if (mempool !== 'ws' && mempool !== 'poll' && mempool !== 'off') problems.push(`  MEMPOOL_LAUNCHES_${chainId}: must be ws, poll or off`);
    if (mempool === 'ws' && !wsUrl) problems.push(`  MEMPOOL_LAUNCHES_${chainId}: ws needs WS_URL_${chainId} (or use poll)`);
    const executor = address(`EXECUTOR_${chainId}`, undefined);
    const relayerKey = source[`RELAYER_KEY_${chainId}`] || null;
    if (relayerKey && !PRIVATE_KEY.test(relayerKey)) problems.push(`  RELAYER_KEY_${chainId}: must be a 32-byte hex private key`);
    if (executor && !relayerKey) problems.push(`  RELAYER_KEY_${chainId}: required with EXECUTOR_${chainId} (the relayer sends wallet intents' buys)`);
    const pendingNonces = source[`PENDING_NONCES_${chainId}`] || 'auto';
    if (pendingNonces !== 'sender' && pendingNonces !== 'block' && pendingNonces !== 'auto')
      problems.push(`  PENDING_NONCES_${chainId}: must be sender, block or auto`);
    const orderedBatches = source[`ORDERED_BATCHES_${chainId}`] || 'auto';
    if (orderedBatches !== 'yes' && orderedBatches !== 'no' && orderedBatches !== 'auto')
      problems.push(`  ORDERED_BATCHES_${chainId}: must be yes, no or auto`);
    if (rpcUrls.length > 0 && factory && wrappedNative) {
      chains.push({
        chainId,
        rpcUrls,
        wsUrls,
        factory,
        wrappedNative,
        router,
        stablePair,
        devSignerKeys,
        relays,
        mempool: mempool === 'ws' || mempool === 'poll' ? mempool : 'off',
        executor,
        relayerKey: relayerKey && PRIVATE_KEY.test(relayerKey) ? relayerKey : null,
        pendingNonces: pendingNonces === 'sender' || pendingNonces === 'block' ? pendingNonces : 'auto',
        orderedBatches: orderedBatches === 'yes' || orderedBatches === 'no' ? orderedBatches : 'auto',
      });
    }
  }
  return chains;
}

export type IntentServiceEnv = z.output<typeof EnvSchema> & { watchedChains: WatchedChain[] };

/** Reads and validates the environment once; exits with every problem listed when it is wrong. */
export function loadEnv(source: NodeJS.ProcessEnv = process.env): IntentServiceEnv {
  // The chains are checked only once the schema's values are right (they need CHAIN_IDS).
  return loadServiceEnv('intent-service', EnvSchema, source, (base, problems) => ({
    watchedChains: base ? watchedChains(base.CHAIN_IDS, source, problems) : [],
  }));
}

export const ENV = Symbol('IntentServiceEnv');
