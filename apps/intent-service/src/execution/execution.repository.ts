import { Inject, Injectable } from '@nestjs/common';
import type { LaunchType, StateUpdate } from '@tradeinfra/contracts';
import { ADVISORY_LOCKS } from '@tradeinfra/service-kit';
import { DataSource } from 'typeorm';
import { CLAIMABLE } from '../intents/execution-transitions.js';
import type { LaunchedToken, SubmittedIntent } from './execution.types.js';

export type {
  ClaimedIntent,
  LaunchedToken,
  LaunchOrigin,
  LaunchStamp,
  Outcome,
  PendingLaunchState,
  SubmittedIntent,
  ToSubmit,
  WaitingAgain,
} from './execution.types.js';

/** One claimable intent's token spelling for the launch row `alias` (the intents' EIP-55 form). */
const FIRST_CLAIMABLE = (alias: string) =>
  `SELECT x.token_address AS token FROM intent.intents x WHERE x.chain_id = ${alias}.chain_id AND lower(x.token_address) = ${alias}.token AND ${CLAIMABLE} LIMIT 1`;
/** The advisory lock class of a chain's executor. */
const LOCK_CLASS = ADVISORY_LOCKS.executor;

/**
 * The executor's reads (launched tokens with claimable intents, the buys it follows, its senders'
 * pending nonces) and the chain's execution lock. It writes no table: IntentsRepository writes
 * the intents (docs/design/exactly-once-execution.md).
 */
@Injectable()
export class ExecutionRepository {
  constructor(@Inject(DataSource) private readonly db: DataSource) {}

  /**
   * Tokens with claimable intents whose launch is in a block, or pending (seen in the mempool,
   * block not recorded yet). A launch first seen in its block is `private_transaction` when the
   * chain's mempool is followed (`mempoolFollowed`), else `block`.
   */
  async launchedTokens(chainId: number, mempoolFollowed: boolean): Promise<LaunchedToken[]> {
    const rows: {
      launch_type: LaunchType;
      launch_tx: string | null;
      token: string;
      pair: string;
      block_number: string | null;
      seen_at: Date | null;
      tx_hash: string | null;
      raw: string | null;
      token_reserve: string | null;
      native_reserve: string | null;
      state_after: StateUpdate | null;
      sender: string | null;
      nonce: string | null;
    }[] = await this.db.query(
      `SELECT t.token, l.pair, l.block_number, l.seen_at, NULL AS tx_hash, NULL AS raw, NULL AS token_reserve, NULL AS native_reserve, NULL::jsonb AS state_after,
         NULL AS sender, NULL AS nonce,
         CASE WHEN l.seen_pending THEN 'public_transaction' WHEN $2 THEN 'private_transaction' ELSE 'block' END AS launch_type, l.tx_hash AS launch_tx
       FROM intent.launches l
       CROSS JOIN LATERAL (${FIRST_CLAIMABLE('l')}) t
       WHERE l.chain_id = $1
       UNION ALL
       SELECT t.token, p.pair, NULL, p.seen_at, p.tx_hash, p.raw, p.token_reserve, p.native_reserve, p.state_after, p.sender, p.nonce::text,
         'public_transaction', p.tx_hash
       FROM intent.pending_launches p
       CROSS JOIN LATERAL (${FIRST_CLAIMABLE('p')}) t
       WHERE p.chain_id = $1 AND NOT EXISTS (SELECT 1 FROM intent.launches l WHERE l.chain_id = p.chain_id AND l.token = p.token)`,
      [chainId, mempoolFollowed],
    );
    return rows.map((r) => ({
      launch: { type: r.launch_type, txHash: r.launch_tx },
      token: r.token,
      pair: r.pair,
      blockNumber: r.block_number === null ? null : BigInt(r.block_number),
      seenAt: r.seen_at,
      pending:
        r.tx_hash === null
          ? null
          : {
              txHash: r.tx_hash,
              raw: r.raw!,
              origin: { sender: r.sender!, nonce: BigInt(r.nonce!) },
              tokenReserve: BigInt(r.token_reserve!),
              nativeReserve: BigInt(r.native_reserve!),
              stateAfter: r.state_after ?? {},
            },
    }));
  }

  /**
   * Runs `work` holding the chain's execution lock (a session advisory lock on a connection of
   * its own, released when the work ends or the connection dies), or returns null at once when
   * another replica holds it. One executor per chain at a time keeps each wallet's nonces and
   * each pool's quotes consistent across replicas.
   */
  async withChainLock<T>(chainId: number, work: () => Promise<T>): Promise<T | null> {
    const runner = this.db.createQueryRunner();
    await runner.connect();
    try {
      const [{ locked }] = await runner.query('SELECT pg_try_advisory_lock($1, $2) AS locked', [LOCK_CLASS, chainId]);
      if (!locked) return null;
      try {
        return await work();
      } finally {
        await runner.query('SELECT pg_advisory_unlock($1, $2)', [LOCK_CLASS, chainId]);
      }
    } finally {
      await runner.release();
    }
  }

  /**
   * Up to `limit` senders of intents waiting for their launch on the chain: each bot intent's
   * wallet, and `relayer` once for any wallet intents (their buys are the relayer's).
   */
  async waitingSenders(chainId: number, limit: number, relayer: string | null): Promise<string[]> {
    const rows: { sender: string }[] = await this.db.query(
      `SELECT DISTINCT CASE WHEN signature IS NULL THEN wallet ELSE $3 END AS sender FROM intent.intents
       WHERE chain_id = $1 AND status = 'pending' AND phase IS NULL AND (signature IS NULL OR $3 IS NOT NULL) AND NOT is_exit
       LIMIT $2`,
      [chainId, limit, relayer],
    );
    return rows.map((r) => r.sender);
  }

  /** Per wallet (lowercase), the highest nonce of its buys still waiting for the chain. */
  async pendingNonces(chainId: number, wallets: string[]): Promise<Map<string, bigint>> {
    const rows: { wallet: string; nonce: string }[] = await this.db.query(
      `SELECT coalesce(tx_sender, lower(wallet)) AS wallet, max(tx_nonce)::text AS nonce FROM intent.intents
       WHERE chain_id = $1 AND status = 'pending' AND phase = 'submitted' AND coalesce(tx_sender, lower(wallet)) = ANY($2::text[])
       GROUP BY 1`,
      [chainId, wallets.map((w) => w.toLowerCase())],
    );
    return new Map(rows.map((r) => [r.wallet, BigInt(r.nonce)]));
  }

  async submitted(chainId: number): Promise<SubmittedIntent[]> {
    const rows: Record<string, string | boolean | null>[] = await this.db.query(
      `SELECT x.id, coalesce(x.tx_sender, x.wallet) AS wallet, x.tx_hash, x.signed_tx, x.tx_nonce::text, x.target_block::text,
         coalesce(x.first_or_fail, false) AS first_or_fail, extract(epoch FROM x.expires_at)::bigint::text AS expiry, x.bribe::text,
         (SELECT p.raw FROM intent.pending_launches p
          WHERE p.chain_id = x.chain_id AND p.tx_hash = x.launch_tx_hash AND x.launch_type = 'public_transaction'
            AND NOT EXISTS (SELECT 1 FROM intent.launches l WHERE l.chain_id = p.chain_id AND l.token = p.token)) AS behind,
         (SELECT l.block_number::text FROM intent.launches l
          WHERE x.launch_type = 'public_transaction' AND l.chain_id = x.chain_id AND l.token = lower(x.token_address)
            AND l.tx_hash = x.launch_tx_hash
            -- sent behind it while it was pending (a later round, after it was mined, targets a later block)
            AND x.target_block <= l.block_number) AS launch_block,
         x.launch_tx_hash, x.launch_sender, x.launch_nonce::text,
         x.launch_block IS NOT NULL AS launch_stamped, tl.tx_hash AS token_launch_tx, tl.block_number::text AS token_launch_block
       FROM intent.intents x
       LEFT JOIN intent.launches tl ON tl.chain_id = x.chain_id AND tl.token = lower(x.token_address) AND x.launch_block IS NULL
       WHERE x.chain_id = $1 AND x.status = 'pending' AND x.phase = 'submitted' AND NOT x.is_exit
       ORDER BY 2, x.tx_nonce`,
      [chainId],
    );
    return rows.map((r) => ({
      id: r.id as string,
      wallet: r.wallet as string,
      txHash: r.tx_hash as string,
      signedTx: r.signed_tx as string,
      nonce: BigInt(r.tx_nonce as string),
      targetBlock: BigInt(r.target_block as string),
      firstOrFail: r.first_or_fail as boolean,
      expiry: BigInt(r.expiry as string),
      bribe: BigInt(r.bribe as string),
      behind: r.behind as string | null,
      launchBlock: r.launch_block === null ? null : BigInt(r.launch_block as string),
      sentBehind:
        r.launch_sender === null ? null : { txHash: r.launch_tx_hash as string, sender: r.launch_sender as string, nonce: BigInt(r.launch_nonce as string) },
      launchStamped: r.launch_stamped === true,
      tokenLaunch: r.token_launch_block === null ? null : { txHash: r.token_launch_tx as string | null, block: BigInt(r.token_launch_block as string) },
    }));
  }
}
