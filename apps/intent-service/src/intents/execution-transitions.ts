import type { IntentStatusData } from '@tradeinfra/contracts';
import type { DataSource } from 'typeorm';
import type { ClaimedIntent, LaunchStamp, Outcome, ToSubmit, WaitingAgain } from '../execution/execution.types.js';
import { OutboxRepository } from '../outbox/outbox.repository.js';

/**
 * A buy waiting, or claimed by a round that did not finish (its replica died): only the replica
 * holding the chain's execution lock claims, one round at a time, so any claim it finds is stale.
 * Exits (`is_exit`) are never a launch's: the exit watcher claims them.
 */
export const CLAIMABLE = `x.status = 'pending' AND x.phase IS DISTINCT FROM 'submitted' AND NOT x.is_exit`;

/** statusData as stored: NULL when there is nothing to say. */
function storedData(data: IntentStatusData | null | undefined): string | null {
  return data && Object.keys(data).length > 0 ? JSON.stringify(data) : null;
}

/**
 * The exit of each completed buy in `u` that carries an `exit` object (`exit_spec`): the same
 * wallet, token, chain and webhooks, following the buy (its entry price is measured from the
 * buy's receipt by the exit watcher). Returns `tenant_id, record` for its `created` event.
 */
const EXIT_OF_COMPLETED_BUY = `INSERT INTO intent.intents AS y (id, tenant_id, status, chain_id, wallet, token_address, bribe, buy_amount, expires_at,
    min_out, max_slippage_bps, gas_tip, notification_webhook_url, webhook_url, webhook_batch, webhook_protocol, created_at, updated_at,
    is_exit, exit_amount, take_profit, stop_loss, trailing_stop, on_rug, follows_intent_id)
  SELECT intent.uuid_v7(), b.tenant_id, 'pending', b.chain_id, b.wallet, b.token_address, coalesce((b.exit_spec->>'bribe')::numeric, 0), 0,
    to_timestamp((b.exit_spec->>'expiry')::bigint), (b.exit_spec->>'minOut')::numeric, (b.exit_spec->>'maxSlippageBps')::integer, b.gas_tip,
    b.notification_webhook_url, b.webhook_url, b.webhook_batch, b.webhook_protocol, clock_timestamp(), clock_timestamp(),
    true, nullif(b.exit_spec->>'amount', 'all')::numeric, (b.exit_spec->>'takeProfit')::numeric, (b.exit_spec->>'stopLoss')::numeric,
    (b.exit_spec->>'trailingStop')::numeric, (b.exit_spec->>'onRug')::boolean, b.id
  FROM u b WHERE b.status = 'completed' AND b.exit_spec IS NOT NULL
  RETURNING y.tenant_id, intent.record_json(y) AS record`;

/** A token's claimable intents ($1 chain, $2 token) in the order a claim takes them: highest bribe first, then oldest. */
const CLAIM_QUEUE = `FROM intent.intents x
  WHERE x.chain_id = $1 AND lower(x.token_address) = lower($2) AND ${CLAIMABLE}
  ORDER BY x.bribe DESC, x.id`;

/** The columns of a claimed intent (as `x`), and its row as a ClaimedIntent. */
const CLAIMED_COLUMNS = `x.id, x.tenant_id, x.wallet, x.token_address, x.buy_amount::text, x.bribe::text, x.min_in::text, x.min_out::text,
  x.min_liquidity::text, x.max_buy_tax::text, x.max_sell_tax::text, x.max_slippage_bps, x.fee_bps, x.fee_recipient,
  x.first_or_fail, x.gas_tip::text, extract(epoch FROM x.expires_at)::bigint::text AS expiry, x.webhook_url,
  x.webhook_batch, x.webhook_protocol, x.signature, x.intent_nonce::text`;

function claimedIntent(r: Record<string, string | number | boolean | null>): ClaimedIntent {
  return {
    id: r.id as string,
    tenantId: r.tenant_id as string,
    wallet: r.wallet as string,
    tokenAddress: r.token_address as string,
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
    webhookBatch: r.webhook_batch === true,
    webhookProtocol: r.webhook_protocol === 'tradeinfra' ? 'tradeinfra' : 'merkle',
    signature: r.signature as string | null,
    nonce: r.intent_nonce as string | null,
  };
}

/**
 * The executor's transitions of `intent.intents` (claim, settle, release, wait again, outcomes):
 * IntentsRepository's part in a file of its own. Every change is conditional on the row's status,
 * phase and claim, and writes its outbox event in the same statement
 * (docs/design/exactly-once-execution.md).
 */
export abstract class ExecutionTransitions {
  protected constructor(protected readonly db: DataSource) {}

  /** Claims up to `limit` waiting intents of a launched token, highest bribe first. */
  async claim(chainId: number, token: string, claimToken: string, limit: number): Promise<ClaimedIntent[]> {
    const rows: Record<string, string | number | boolean | null>[] = await this.db.query(
      `WITH c AS (
         SELECT x.id ${CLAIM_QUEUE}
         LIMIT $4
         FOR UPDATE SKIP LOCKED
       ),
       u AS (
         UPDATE intent.intents x
         SET phase = 'claimed', claim_token = $3, claimed_at = now()
         FROM c WHERE x.id = c.id
         RETURNING x.*
       )
       SELECT ${CLAIMED_COLUMNS} FROM u x`,
      [chainId, token, claimToken, limit],
    );
    // RETURNING has no order: highest bribe first, then oldest.
    return rows.map(claimedIntent).sort((a, b) => {
      const d = BigInt(b.bribe) - BigInt(a.bribe);
      return d > 0n ? 1 : d < 0n ? -1 : a.id < b.id ? -1 : 1;
    });
  }

  /**
   * The first `limit` intents a claim of the token would take now, in its order, without claiming
   * them (what a pending launch's early probe picks its amount from).
   */
  async claimableHead(chainId: number, token: string, limit: number): Promise<ClaimedIntent[]> {
    const rows: Record<string, string | number | boolean | null>[] = await this.db.query(
      `SELECT ${CLAIMED_COLUMNS} ${CLAIM_QUEUE}
       LIMIT $3`,
      [chainId, token, limit],
    );
    return rows.map(claimedIntent);
  }

  /**
   * Settles a round in one transaction: fails `failures`, marks `submit` submitted (only rows still
   * pending and claimed by `claimToken`; a wallet's buys stop at its first unclaimable nonce) and
   * releases `release`. Returns what may be sent, in sending order
   * (docs/design/exactly-once-execution.md).
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
      // The same read says which rows are still this round's to send (one round trip, not two).
      const touched = [...failures.map((f) => f.id), ...submit.map((s) => s.id), ...release];
      const claimable = new Set<string>();
      if (touched.length > 1 || submit.length > 0) {
        const rows: { id: string; claimable: boolean | null }[] = await tx.query(
          `SELECT id, (status = 'pending' AND phase = 'claimed' AND claim_token = $2) AS claimable
           FROM intent.intents WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`,
          [touched, claimToken],
        );
        for (const r of rows) if (r.claimable === true) claimable.add(r.id);
      }
      let failed = 0;
      if (failures.length > 0) {
        const [{ n }] = await tx.query(
          `WITH f AS (
             UPDATE intent.intents x
             SET status = 'failed', status_reason = s.reason, status_data = s.data::jsonb, phase = NULL, claim_token = NULL, claimed_at = NULL, updated_at = now(),
                 launch_type = $5, launch_tx_hash = $6, launch_block = $7
             FROM unnest($2::uuid[], $3::text[], $4::text[]) AS s(id, reason, data)
             WHERE x.id = s.id AND x.status = 'pending' AND x.phase = 'claimed' AND x.claim_token = $1
             RETURNING x.tenant_id, intent.record_json(x) AS record
           ),
           e AS (${OutboxRepository.insertSql('f', 'failed', { returning: true })})
           SELECT count(*)::int AS n FROM e`,
          [
            claimToken,
            failures.map((f) => f.id),
            failures.map((f) => f.reason),
            failures.map((f) => storedData(f.data)),
            launch.type,
            launch.txHash,
            launch.block?.toString() ?? null,
          ],
        );
        failed = n;
      }
      const sendable: ToSubmit[] = [];
      const held = new Set<string>(release);
      if (submit.length > 0) {
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
                   launch_type = $7, launch_tx_hash = $8, launch_sender = $9, launch_nonce = $10, launch_block = $11
               FROM unnest($1::uuid[], $3::text[], $4::text[], $5::bigint[], $6::text[]) AS s(id, raw, hash, nonce, sender)
               WHERE x.id = s.id
               RETURNING x.tenant_id, intent.record_json(x) AS record
             )
             ${OutboxRepository.insertSql('u', 'tx_pending')}`,
            [
              sendable.map((s) => s.id),
              targetBlock.toString(),
              sendable.map((s) => s.raw),
              sendable.map((s) => s.hash),
              sendable.map((s) => s.nonce.toString()),
              sendable.map((s) => s.wallet.toLowerCase()),
              launch.type,
              launch.txHash,
              launch.pendingFrom?.sender ?? null,
              launch.pendingFrom?.nonce.toString() ?? null,
              launch.block?.toString() ?? null,
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

  /** Hands claimed intents back to the queue untouched (a claim made for a launch its round did not find). */
  async handBack(claimToken: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.query(
      `UPDATE intent.intents SET phase = NULL, claim_token = NULL, claimed_at = NULL
       WHERE id = ANY($1::uuid[]) AND status = 'pending' AND phase = 'claimed' AND claim_token = $2`,
      [ids, claimToken],
    );
  }

  /**
   * Buys sent behind a pending launch that never happened (replaced, dropped): their intents wait
   * again for the token's next launch (phase, buy and launch cleared; statusReason the reason;
   * statusData `{txHash, launchTxHash}`: the buy that went out and the launch it followed), each
   * with a `waiting` event. Only a row still holding that very buy changes; returns how many.
   */
  async waitAgain(items: WaitingAgain[]): Promise<number> {
    if (items.length === 0) return 0;
    const [{ n }] = (await this.db.query(
      `WITH u AS (
         UPDATE intent.intents x
         SET phase = NULL, claim_token = NULL, claimed_at = NULL, signed_tx = NULL, tx_hash = NULL, tx_nonce = NULL, target_block = NULL,
             submitted_at = NULL, tx_sender = NULL, status_reason = s.reason,
             status_data = jsonb_build_object('txHash', s.tx_hash, 'launchTxHash', s.launch_tx_hash),
             launch_type = NULL, launch_tx_hash = NULL, launch_sender = NULL, launch_nonce = NULL, launch_block = NULL, updated_at = now()
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[]) AS s(id, tx_hash, reason, launch_tx_hash)
         WHERE x.id = s.id AND x.status = 'pending' AND x.phase = 'submitted' AND x.tx_hash = s.tx_hash
         RETURNING x.tenant_id, intent.record_json(x) AS record
       ),
       e AS (${OutboxRepository.insertSql('u', 'waiting', { returning: true })})
       SELECT count(*)::int AS n FROM e`,
      [items.map((w) => w.id), items.map((w) => w.txHash), items.map((w) => w.reason), items.map((w) => w.launchTxHash)],
    )) as { n: number }[];
    return n;
  }

  /**
   * Records what the chain decided for submitted buys (each only while still pending); a
   * completed buy with an `exit` object creates its exit in the same statement.
   */
  async recordOutcomes(outcomes: Outcome[]): Promise<number> {
    if (outcomes.length === 0) return 0;
    const [{ n }] = await this.db.query(
      `WITH u AS (
         UPDATE intent.intents x
         SET status = s.status, status_reason = s.reason, status_data = s.data::jsonb, executed_at = s.executed_at, updated_at = now(),
             launch_block = coalesce(s.launch_block, x.launch_block),
             launch_tx_hash = CASE WHEN s.launch_block IS NULL THEN x.launch_tx_hash ELSE s.launch_tx END
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::timestamptz[], $5::text[], $6::bigint[], $7::text[])
           AS s(id, status, reason, executed_at, data, launch_block, launch_tx)
         WHERE x.id = s.id AND x.status = 'pending' AND x.phase = 'submitted'
         RETURNING x.*, intent.record_json(x) AS record
       ),
       e AS (${OutboxRepository.insertSql('u', { column: 'status' }, { returning: true })}),
       n AS (${EXIT_OF_COMPLETED_BUY}),
       ne AS (${OutboxRepository.insertSql('n', 'created')})
       SELECT count(*)::int AS n FROM e`,
      [
        outcomes.map((o) => o.id),
        outcomes.map((o) => o.status),
        outcomes.map((o) => o.reason),
        outcomes.map((o) => o.executedAt),
        outcomes.map((o) => storedData(o.data)),
        outcomes.map((o) => o.launch?.block.toString() ?? null),
        outcomes.map((o) => o.launch?.txHash ?? null),
      ],
    );
    return n;
  }
}
