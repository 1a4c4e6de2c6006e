import { ADVISORY_LOCKS } from '@tradeinfra/service-kit';
import type { TestDatabase } from '@tradeinfra/test-support';
import type { DataSource } from 'typeorm';
import { ChainHeads } from '../execution/chain-heads.js';
import type { ExecutedChain } from '../execution/chain-clients.js';
import { ExecutionRepository, type LaunchedToken } from '../execution/execution.repository.js';
import { Executor } from '../execution/executor.js';
import { IntentsRepository } from '../intents/intents.repository.js';
import { migratedDatabase } from './harness.js';

/**
 * A pending launch's intents are claimed the moment it is recognised, before its round holds the
 * chain's lock: none of them may stay claimed when no round takes the claim (a real executor on a
 * real database; the chain's node and everything past the claim are stand-ins, never reached).
 */
describe('Executor: claims made as a pending launch is recognised', () => {
  const CHAIN = 31337;
  const [A, B] = ['0x00000000000000000000000000000000000000Aa', '0x00000000000000000000000000000000000000bB'];
  const PER_TOKEN = 3;
  let db: TestDatabase;
  let ds: DataSource;
  let executor: Executor;
  let started = false;

  const chain = {
    config: {
      chainId: CHAIN,
      mempool: 'off',
      router: '0x00000000000000000000000000000000000000c0',
      relays: [],
      wrappedNative: '0x00000000000000000000000000000000000000d0',
    },
    rpc: { call: async () => ({ number: '0x10', hash: `0x${'1'.repeat(64)}`, baseFeePerGas: '0x1' }) },
    submitter: { kind: 'bundle' },
    traits: async () => ({ pendingNonces: 'sender', orderedBatches: false }),
    wallets: null,
  } as unknown as ExecutedChain;
  const env = { SIGNER_TIMEOUT_MS: 1000, LAUNCH_POLL_INTERVAL_MS: 20, EXECUTION_BATCH: 100, watchedChains: [] };

  const launched = (token: string): LaunchedToken =>
    ({
      token,
      pair: '0x00000000000000000000000000000000000000e0',
      blockNumber: null,
      seenAt: new Date(),
      launch: { type: 'public_transaction', txHash: `0x${'2'.repeat(64)}` },
    }) as unknown as LaunchedToken;

  /** How many of the token's intents are claimed, and how many wait. */
  async function phases(token: string): Promise<{ claimed: number; waiting: number }> {
    const [row] = (await ds.query(
      `SELECT count(*) FILTER (WHERE phase = 'claimed')::int AS claimed, count(*) FILTER (WHERE phase IS NULL)::int AS waiting
       FROM intent.intents WHERE token_address = $1`,
      [token],
    )) as { claimed: number; waiting: number }[];
    return row!;
  }
  async function until(token: string, want: { claimed: number; waiting: number }, timeoutMs = 5_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const now = await phases(token);
      if (now.claimed === want.claimed && now.waiting === want.waiting) return;
      if (Date.now() > end) throw new Error(`${token}: ${JSON.stringify(now)}, expected ${JSON.stringify(want)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }
  const allClaimed = { claimed: PER_TOKEN, waiting: 0 };
  const allWaiting = { claimed: 0, waiting: PER_TOKEN };

  beforeAll(async () => {
    ({ db, ds } = await migratedDatabase());
  });
  beforeEach(async () => {
    await ds.query('DELETE FROM intent.intents');
    for (const token of [A, B]) {
      for (let i = 0; i < PER_TOKEN; i++) {
        await ds.query(
          `INSERT INTO intent.intents (id, tenant_id, status, chain_id, wallet, token_address, bribe, buy_amount, expires_at)
           VALUES (intent.uuid_v7(), gen_random_uuid(), 'pending', $1, '0x00000000000000000000000000000000000000b0', $2, $3, 1, now() + interval '1 hour')`,
          [CHAIN, token, i + 1],
        );
      }
    }
    const never = {} as never;
    executor = new Executor(new ExecutionRepository(ds), new IntentsRepository(ds), never, never, new ChainHeads(), never, never, env as never, [chain]);
    started = false;
  });
  afterEach(async () => {
    if (started) await executor.onModuleDestroy();
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  it('claims the launched token’s intents at once, and hands them back at shutdown when no round took them', async () => {
    executor.launchSeen(CHAIN, [launched(A)], Promise.resolve([A.toLowerCase()]));
    await until(A, allClaimed);
    expect(await phases(B)).toEqual(allWaiting);
    await executor.onModuleDestroy();
    expect(await phases(A)).toEqual(allWaiting);
  });

  it('a second launch recognised before a round took the first: the first one’s intents wait again', async () => {
    executor.launchSeen(CHAIN, [launched(A)], Promise.resolve([A.toLowerCase()]));
    await until(A, allClaimed);
    executor.launchSeen(CHAIN, [launched(B)], Promise.resolve([B.toLowerCase()]));
    await until(A, allWaiting);
    await until(B, allClaimed);
    await executor.onModuleDestroy();
    expect(await phases(B)).toEqual(allWaiting);
  });

  it('while another replica holds the chain’s lock, the claim goes back once it is too old for a round to use', async () => {
    const holder = ds.createQueryRunner();
    await holder.connect();
    try {
      const [{ locked }] = (await holder.query('SELECT pg_try_advisory_lock($1, $2) AS locked', [ADVISORY_LOCKS.executor, CHAIN])) as { locked: boolean }[];
      expect(locked).toBe(true);
      executor.onApplicationBootstrap();
      started = true;
      executor.launchSeen(CHAIN, [launched(A)], Promise.resolve([A.toLowerCase()]));
      await until(A, allClaimed);
      // The executor's ticks keep finding the lock taken; past AHEAD_MS (1 s) the claim is handed back.
      await until(A, allWaiting, 5_000);
    } finally {
      await holder.query('SELECT pg_advisory_unlock_all()');
      await holder.release();
    }
  });
});
