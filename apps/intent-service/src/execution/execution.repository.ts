import { Inject, Injectable } from '@nestjs/common';
import type { IntentStatusData, LaunchType, StateUpdate } from '@tradeinfra/contracts';
import type { ClaimedIntent, LaunchedToken, LaunchStamp, Outcome, SubmittedIntent, ToSubmit } from './execution.types.js';
import { ADVISORY_LOCKS } from '@tradeinfra/service-kit';
import { DataSource } from 'typeorm';
import { outboxInsert } from '../outbox/outbox-insert.js';

export type { ClaimedIntent, LaunchedToken, LaunchStamp, Outcome, PendingLaunchState, SubmittedIntent, ToSubmit } from './execution.types.js';

/** statusData as stored: NULL when there is nothing to say. */
function storedData(data: IntentStatusData | null | undefined): string | null {
  return data && Object.keys(data).length > 0 ? JSON.stringify(data) : null;
}

/**
 * Waiting, or claimed by a round that did not finish (its replica died): only the replica holding
 * the chain's execution lock claims, one round at a time, so any claim it finds is stale.
 */
const CLAIMABLE = `x.status = 'pending' AND x.phase IS DISTINCT FROM 'submitted'`;
/** One claimable intent's token spelling for the launch row `alias` (the intents' EIP-55 form). */
const FIRST_CLAIMABLE = (alias: string) =>
  `SELECT x.token_address AS token FROM intent.intents x WHERE x.chain_id = ${alias}.chain_id AND lower(x.token_address) = ${alias}.token AND ${CLAIMABLE} LIMIT 1`;
/** statusReason of an intent waiting again because the launch it was sent behind was dropped or replaced. */
export const LAUNCH_DROPPED = 'launch_dropped';
/** The advisory lock class of a chain's executor. */
const LOCK_CLASS = ADVISORY_LOCKS.executor;

/**
 * The executor's reads and writes of `intent.intents`: its transitions of a row (claim, settle,
 * release, outcomes: the columns `phase`, `claim_token`, `tx_*`, `target_block`, `executed_at`
 * and the status they lead to); every other write of the table is IntentsRepository's. Every
 * change is conditional on the row's status, phase and claim, so a cancel, an expiry or another
 * replica acting on the same row first makes it a no-op; every status change writes its outbox
 * event in the same statement (outboxInsert). Reads `intent.launches` (LaunchesRepository writes it).
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
    }[] = await this.db.query(
      `SELECT t.token, l.pair, l.block_number, l.seen_at, NULL AS tx_hash, NULL AS raw, NULL AS token_reserve, NULL AS native_reserve, NULL::jsonb AS state_after,
         CASE WHEN l.seen_pending THEN 'public_transaction' WHEN $2 THEN 'private_transaction' ELSE 'block' END AS launch_type, l.tx_hash AS launch_tx
       FROM intent.launches l
       CROSS JOIN LATERAL (${FIRST_CLAIMABLE('l')}) t
       WHERE l.chain_id = $1
       UNION ALL
       SELECT t.token, p.pair, NULL, p.seen_at, p.tx_hash, p.raw, p.token_reserve, p.native_reserve, p.state_after, 'public_transaction', p.tx_hash
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

  /** Claims up to `limit` waiting intents of a launched token, highest bribe first. */
  async claim(chainId: number, token: string, claimToken: string, limit: number): Promise<ClaimedIntent[]> {
    const rows: Record<string, string | number | boolean | null>[] = await this.db.query(
      `WITH c AS (
         SELECT x.id FROM intent.intents x
         WHERE x.chain_id = $1 AND lower(x.token_address) = lower($2) AND ${CLAIMABLE}
         ORDER BY x.bribe DESC, x.id
         LIMIT $4
         FOR UPDATE SKIP LOCKED
       ),
       u AS (
         UPDATE intent.intents x
         SET phase = 'claimed', claim_token = $3, claimed_at = now()
         FROM c WHERE x.id = c.id
         RETURNING x.*
       )
       SELECT x.id, x.tenant_id, x.wallet, x.buy_amount::text, x.bribe::text, x.min_in::text, x.min_out::text,
         x.min_liquidity::text, x.max_buy_tax::text, x.max_sell_tax::text, x.max_slippage_bps, x.fee_bps, x.fee_recipient,
         x.first_or_fail, x.gas_tip::text, extract(epoch FROM x.expires_at)::bigint::text AS expiry, x.webhook_url,
         x.signature, x.intent_nonce::text
       FROM u x`,
      [chainId, token, claimToken, limit],
    );
    const claimed = rows.map((r) => ({
      id: r.id as string,
      tenantId: r.tenant_id as string,
      wallet: r.wallet as string,
      buyAmount: r.buy_amount as string,
      bribe: r.bribe as string,
      minIn: r.min_in as string | null,
      minOut: r.min_out as string | null,
      minLiquidity: r.min_liquidity as string | null,
      maxBuyTax: r.max_buy_tax as string | null,
      maxSellTax: r.max_sell_tax as string | null,
      maxSlippageBps: r.max_slippage_bps as number | null,
      feeBps: r.fee_bps as number | null,
      feeRecipient: r.fee_recipient as string | null,
      firstOrFail: r.first_or_fail === true,
      gasTip: r.gas_tip as string | null,
      expiry: BigInt(r.expiry as string),
      webhookUrl: r.webhook_url as string | null,
      signature: r.signature as string | null,
      nonce: r.intent_nonce as string | null,
    }));
    // RETURNING has no order: highest bribe first, then oldest.
    return claimed.sort((a, b) => {
      const d = BigInt(b.bribe) - BigInt(a.bribe);
      return d > 0n ? 1 : d < 0n ? -1 : a.id < b.id ? -1 : 1;
    });
  }

  /**
   * Settles a round in one transaction: fails the intents that failed a check or their signing,
   * marks `submit` as submitted, and hands back to the queue (`release`) what must wait for a
   * later round. Only rows still pending and claimed by `claimToken` change. A wallet's buys
   * are marked in nonce order and stop at the first that is no longer claimable (cancelled or
   * expired meanwhile): its later nonces would never be mined, so they are released too.
   * `submit` is in sending order (each wallet's nonces ascending); returns what may be sent, in
   * that order.
   */
  async settleRound(
    claimToken: string,
    failures: { id: string; reason: string; data?: IntentStatusData }[],
    submit: ToSubmit[],
    release: string[],
    targetBlock: bigint,
    launch: LaunchStamp,
  ): Promise<{ submitted: ToSubmit[]; failed: number }> {
    return this.db.transaction(async (tx) => {
      // Every row of the round is locked first, in id order, as a bulk cancel locks its rows:
      // two transactions that lock several of the same rows in one order cannot deadlock.
      const touched = [...failures.map((f) => f.id), ...submit.map((s) => s.id), ...release];
      if (touched.length > 1) {
        await tx.query(`SELECT id FROM intent.intents WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`, [touched]);
      }
      let failed = 0;
      if (failures.length > 0) {
        const [{ n }] = await tx.query(
          `WITH f AS (
             UPDATE intent.intents x
             SET status = 'failed', status_reason = s.reason, status_data = s.data::jsonb, phase = NULL, claim_token = NULL, claimed_at = NULL, updated_at = now(),
                 launch_type = $5, launch_tx_hash = $6
             FROM unnest($2::uuid[], $3::text[], $4::text[]) AS s(id, reason, data)
             WHERE x.id = s.id AND x.status = 'pending' AND x.phase = 'claimed' AND x.claim_token = $1
             RETURNING x.tenant_id, intent.record_json(x) AS record
           ),
           e AS (${outboxInsert('f', 'failed', { returning: true })})
           SELECT count(*)::int AS n FROM e`,
          [claimToken, failures.map((f) => f.id), failures.map((f) => f.reason), failures.map((f) => storedData(f.data)), launch.type, launch.txHash],
        );
        failed = n;
      }
      const sendable: ToSubmit[] = [];
      const held = new Set<string>(release);
      if (submit.length > 0) {
        const rows: { id: string }[] = await tx.query(
          `SELECT id FROM intent.intents
           WHERE id = ANY($1::uuid[]) AND status = 'pending' AND phase = 'claimed' AND claim_token = $2
           FOR UPDATE`,
          [submit.map((s) => s.id), claimToken],
        );
        const claimable = new Set(rows.map((r) => r.id));
        const blocked = new Set<string>();
        // `submit` is in sending order, each wallet's nonces ascending.
        for (const s of submit) {
          if (blocked.has(s.wallet)) held.add(s.id);
          else if (!claimable.has(s.id)) blocked.add(s.wallet);
          else sendable.push(s);
        }
        if (sendable.length > 0) {
          // Each buy marked submitted is notified (`tx_pending`, Merkle's intent_tx_pending) with its hash.
          await tx.query(
            `WITH u AS (
               UPDATE intent.intents x
               SET phase = 'submitted', signed_tx = s.raw, tx_hash = s.hash, tx_nonce = s.nonce, target_block = $2, status_reason = NULL,
                   status_data = jsonb_build_object('txHash', s.hash), submitted_at = clock_timestamp(),
                   tx_sender = CASE WHEN s.sender = lower(x.wallet) THEN NULL ELSE s.sender END,
                   launch_type = $7, launch_tx_hash = $8
               FROM unnest($1::uuid[], $3::text[], $4::text[], $5::bigint[], $6::text[]) AS s(id, raw, hash, nonce, sender)
               WHERE x.id = s.id
               RETURNING x.tenant_id, intent.record_json(x) AS record
             )
             ${outboxInsert('u', 'tx_pending')}`,
            [
              sendable.map((s) => s.id),
              targetBlock.toString(),
              sendable.map((s) => s.raw),
              sendable.map((s) => s.hash),
              sendable.map((s) => s.nonce.toString()),
              sendable.map((s) => s.wallet.toLowerCase()),
              launch.type,
              launch.txHash,
            ],
          );
        }
      }
      if (held.size > 0) {
        await tx.query(
          `UPDATE intent.intents SET phase = NULL, claim_token = NULL, claimed_at = NULL
           WHERE id = ANY($1::uuid[]) AND status = 'pending' AND phase = 'claimed' AND claim_token = $2`,
          [[...held], claimToken],
        );
      }
      return { submitted: sendable, failed };
    });
  }

  /**
   * Hands claimed intents back to the queue after a transient failure (the next round retries),
   * noting `reason` on them: a pending intent's statusReason says why it has not executed yet,
   * and an intent that expires that way keeps it.
   */
  async release(claimToken: string, ids: string[], reason: string): Promise<void> {
    if (ids.length === 0) return;
    await this.db.query(
      `UPDATE intent.intents SET phase = NULL, claim_token = NULL, claimed_at = NULL, status_reason = $3
       WHERE id = ANY($1::uuid[]) AND status = 'pending' AND phase = 'claimed' AND claim_token = $2`,
      [ids, claimToken, reason],
    );
  }

  /**
   * The buys sent behind a launch transaction that was dropped or replaced before its block: the
   * intents wait again (phase, buy and launch cleared, statusReason `launch_dropped`), to be
   * bought at the token's next launch. Only for buys that can no longer land without that
   * launch (bundles through relays); returns how many.
   */
  async returnToWaiting(chainId: number, launchTxHash: string): Promise<number> {
    const [{ n }] = (await this.db.query(
      `WITH u AS (
         UPDATE intent.intents
         SET phase = NULL, claim_token = NULL, claimed_at = NULL, signed_tx = NULL, tx_hash = NULL, tx_nonce = NULL, target_block = NULL,
             submitted_at = NULL, tx_sender = NULL, status_data = NULL, status_reason = $3, launch_type = NULL, launch_tx_hash = NULL, updated_at = now()
         WHERE chain_id = $1 AND launch_tx_hash = $2 AND status = 'pending' AND phase = 'submitted'
         RETURNING 1
       )
       SELECT count(*)::int AS n FROM u`,
      [chainId, launchTxHash.toLowerCase(), LAUNCH_DROPPED],
    )) as { n: number }[];
    return n;
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
            AND NOT EXISTS (SELECT 1 FROM intent.launches l WHERE l.chain_id = p.chain_id AND l.token = p.token)) AS behind
       FROM intent.intents x WHERE x.chain_id = $1 AND x.status = 'pending' AND x.phase = 'submitted'
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
    }));
  }

  /** Records what the chain decided for submitted buys (each only while still pending). */
  async recordOutcomes(outcomes: Outcome[]): Promise<number> {
    if (outcomes.length === 0) return 0;
    const [{ n }] = await this.db.query(
      `WITH u AS (
         UPDATE intent.intents x
         SET status = s.status, status_reason = s.reason, status_data = s.data::jsonb, executed_at = s.executed_at, updated_at = now()
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::timestamptz[], $5::text[]) AS s(id, status, reason, executed_at, data)
         WHERE x.id = s.id AND x.status = 'pending' AND x.phase = 'submitted'
         RETURNING x.tenant_id, x.status, intent.record_json(x) AS record
       ),
       e AS (${outboxInsert('u', { column: 'status' }, { returning: true })})
       SELECT count(*)::int AS n FROM e`,
      [
        outcomes.map((o) => o.id),
        outcomes.map((o) => o.status),
        outcomes.map((o) => o.reason),
        outcomes.map((o) => o.executedAt),
        outcomes.map((o) => storedData(o.data)),
      ],
    );
    return n;
  }
}
