import { Inject, Injectable } from '@nestjs/common';
import type { CreateExitRequest, ExitTrigger, IntentRecord, IntentStatusData } from '@tradeinfra/contracts';
import { DataSource } from 'typeorm';
import { CREATED_AT } from '../intents/intent-row.js';
import { OutboxRepository } from '../outbox/outbox.repository.js';

/** A pending exit as the watcher evaluates it. */
export interface WatchedExit {
  id: string;
  tenantId: string;
  wallet: string;
  token: string;
  /** null: the balance when it fires. */
  amount: bigint | null;
  takeProfit: string | null;
  stopLoss: string | null;
  trailingStop: string | null;
  onRug: boolean;
  entryPrice: bigint | null;
  /** The followed buy's transaction, while the entry price is not measured yet. */
  followsTxHash: string | null;
  highestPrice: bigint | null;
  minOut: bigint | null;
  maxSlippageBps: number | null;
  bribe: bigint;
  gasTip: bigint | null;
  expiry: bigint;
  webhookUrl: string | null;
  webhookProtocol: 'merkle' | 'tradeinfra';
  statusReason: string | null;
}

/** A sent exit the watcher follows. */
export interface SubmittedExit {
  id: string;
  wallet: string;
  txHash: string;
  raw: string;
  /** The signed approve sent before the sell (null: the allowance was enough). */
  approveRaw: string | null;
  nonce: bigint;
  targetBlock: bigint;
  trigger: ExitTrigger;
  price: string;
}

/** One fired exit to mark submitted (its sell signed). */
export interface FiredExit {
  id: string;
  raw: string;
  hash: string;
  approveRaw: string | null;
  nonce: bigint;
  trigger: ExitTrigger;
  price: bigint;
}

const bigOrNull = (v: unknown) => (v === null || v === undefined ? null : BigInt(v as string));

/**
 * The exit watcher's reads and writes of `intent.intents` rows with `is_exit` (inserted here,
 * read and cancelled by IntentsRepository like any intent). Every status change writes its
 * outbox event in the same statement; every change is conditional on status and phase.
 */
@Injectable()
export class ExitsRepository {
  constructor(@Inject(DataSource) private readonly db: DataSource) {}

  /** Inserts the exit and its `created` event (with an Idempotency-Key: only when the key is new; null otherwise). */
  async create(tenantId: string, id: string, exit: CreateExitRequest, claim: { key: string; requestHash: string } | null): Promise<IntentRecord | null> {
    const guard = claim
      ? `k AS (INSERT INTO intent.idempotency_keys (tenant_id, key, request_hash, intent_id)
           VALUES ($2, $21, $22, $1) ON CONFLICT (tenant_id, key) DO NOTHING RETURNING 1),`
      : '';
    const params: unknown[] = [
      id,
      tenantId,
      exit.chainId,
      exit.wallet,
      exit.tokenAddress,
      exit.bribe,
      exit.expiry,
      exit.minOut,
      exit.maxSlippageBps,
      exit.gasTip,
      exit.notificationWebhookUrl,
      exit.webhookUrl,
      exit.webhookUrl === null ? null : (exit.webhookProtocol ?? 'merkle'),
      exit.amount === 'all' ? null : exit.amount,
      ratio(exit.takeProfit),
      ratio(exit.stopLoss),
      ratio(exit.trailingStop),
      exit.onRug,
      exit.entryPrice,
      exit.followsIntentId,
    ];
    if (claim) params.push(claim.key, claim.requestHash);
    const rows: { record: IntentRecord }[] = await this.db.query(
      `WITH ${guard}
       i AS (
         INSERT INTO intent.intents AS x (id, tenant_id, status, chain_id, wallet, token_address, bribe, buy_amount, expires_at, min_out,
           max_slippage_bps, gas_tip, notification_webhook_url, webhook_url, webhook_protocol, created_at, updated_at,
           is_exit, exit_amount, take_profit, stop_loss, trailing_stop, on_rug, entry_price, follows_intent_id)
         SELECT $1, $2, 'pending', $3, $4, $5, $6, 0, to_timestamp($7), $8, $9, $10, $11, $12, $13,
           ${CREATED_AT}, ${CREATED_AT}, true, $14, $15, $16, $17, $18, $19, $20 ${claim ? 'WHERE EXISTS (SELECT 1 FROM k)' : ''}
         RETURNING x.tenant_id, intent.record_json(x) AS record
       ),
       e AS (${OutboxRepository.insertSql('i', 'created')})
       SELECT record FROM i`,
      params,
    );
    return rows[0]?.record ?? null;
  }

  /** A buy intent of the tenant, as an exit following it needs it (null: none, or an exit). */
  async followedBuy(tenantId: string, id: string): Promise<{ status: string; chainId: number; wallet: string; token: string } | null> {
    const rows: { status: string; chain_id: number; wallet: string; token_address: string }[] = await this.db.query(
      'SELECT status, chain_id, wallet, token_address FROM intent.intents WHERE id = $1 AND tenant_id = $2 AND NOT is_exit',
      [id, tenantId],
    );
    const r = rows[0];
    return r ? { status: r.status, chainId: r.chain_id, wallet: r.wallet, token: r.token_address } : null;
  }

  /** The chain's exits waiting for a trigger (not sent), oldest first. */
  async waiting(chainId: number): Promise<WatchedExit[]> {
    const rows: Record<string, unknown>[] = await this.db.query(
      `SELECT x.id, x.tenant_id, x.wallet, lower(x.token_address) AS token, x.exit_amount::text, x.take_profit::text, x.stop_loss::text,
         x.trailing_stop::text, coalesce(x.on_rug, false) AS on_rug, x.entry_price::text, b.tx_hash AS follows_tx, x.highest_price::text,
         x.min_out::text, x.max_slippage_bps, x.bribe::text, x.gas_tip::text, extract(epoch FROM x.expires_at)::bigint::text AS expiry,
         x.webhook_url, x.webhook_protocol, x.status_reason
       FROM intent.intents x LEFT JOIN intent.intents b ON b.id = x.follows_intent_id AND x.entry_price IS NULL
       WHERE x.chain_id = $1 AND x.status = 'pending' AND x.is_exit AND x.phase IS DISTINCT FROM 'submitted' AND x.expires_at > now()
       ORDER BY x.id`,
      [chainId],
    );
    return rows.map((r) => ({
      id: r.id as string,
      tenantId: r.tenant_id as string,
      wallet: r.wallet as string,
      token: r.token as string,
      amount: bigOrNull(r.exit_amount),
      takeProfit: r.take_profit as string | null,
      stopLoss: r.stop_loss as string | null,
      trailingStop: r.trailing_stop as string | null,
      onRug: r.on_rug === true,
      entryPrice: bigOrNull(r.entry_price),
      followsTxHash: (r.follows_tx as string | null) ?? null,
      highestPrice: bigOrNull(r.highest_price),
      minOut: bigOrNull(r.min_out),
      maxSlippageBps: r.max_slippage_bps as number | null,
      bribe: BigInt(r.bribe as string),
      gasTip: bigOrNull(r.gas_tip),
      expiry: BigInt(r.expiry as string),
      webhookUrl: r.webhook_url as string | null,
      webhookProtocol: r.webhook_protocol === 'tradeinfra' ? 'tradeinfra' : 'merkle',
      statusReason: r.status_reason as string | null,
    }));
  }

  /** The chain's sent exits, to follow. */
  async submitted(chainId: number): Promise<SubmittedExit[]> {
    const rows: Record<string, string>[] = await this.db.query(
      `SELECT id, wallet, tx_hash, signed_tx, signed_approve_tx, tx_nonce::text, target_block::text, fired_trigger, fired_price::text
       FROM intent.intents WHERE chain_id = $1 AND status = 'pending' AND is_exit AND phase = 'submitted' ORDER BY id`,
      [chainId],
    );
    return rows.map((r) => ({
      id: r.id!,
      wallet: r.wallet!,
      txHash: r.tx_hash!,
      raw: r.signed_tx!,
      approveRaw: r.signed_approve_tx ?? null,
      nonce: BigInt(r.tx_nonce!),
      targetBlock: BigInt(r.target_block!),
      trigger: r.fired_trigger as ExitTrigger,
      price: r.fired_price!,
    }));
  }

  /** Entry prices measured from followed buys, and the highest prices seen (only upwards). */
  async recordPrices(entries: { id: string; price: bigint }[], highs: { id: string; price: bigint }[]): Promise<void> {
    if (entries.length > 0) {
      await this.db.query(
        `UPDATE intent.intents x SET entry_price = s.price FROM unnest($1::uuid[], $2::numeric[]) AS s(id, price)
         WHERE x.id = s.id AND x.entry_price IS NULL`,
        [entries.map((e) => e.id), entries.map((e) => e.price.toString())],
      );
    }
    if (highs.length > 0) {
      await this.db.query(
        `UPDATE intent.intents x SET highest_price = s.price FROM unnest($1::uuid[], $2::numeric[]) AS s(id, price)
         WHERE x.id = s.id AND x.status = 'pending' AND (x.highest_price IS NULL OR x.highest_price < s.price)`,
        [highs.map((h) => h.id), highs.map((h) => h.price.toString())],
      );
    }
  }

  /** Notes why waiting exits have not sold (a honeypot, below minOut): statusReason and statusData, no event. */
  async note(items: { id: string; reason: string | null; data: IntentStatusData | null }[]): Promise<void> {
    if (items.length === 0) return;
    await this.db.query(
      `UPDATE intent.intents x SET status_reason = s.reason, status_data = s.data::jsonb
       FROM unnest($1::uuid[], $2::text[], $3::text[]) AS s(id, reason, data)
       WHERE x.id = s.id AND x.status = 'pending' AND x.phase IS NULL`,
      [items.map((i) => i.id), items.map((i) => i.reason), items.map((i) => (i.data ? JSON.stringify(i.data) : null))],
    );
  }

  /** Waiting exits that cannot be sold (their signer refused): `failed` with the reason, each with its event. */
  async fail(failures: { id: string; reason: string; data: IntentStatusData }[]): Promise<void> {
    if (failures.length === 0) return;
    await this.db.query(
      `WITH f AS (
         UPDATE intent.intents x
         SET status = 'failed', status_reason = s.reason, status_data = s.data::jsonb, phase = NULL, claim_token = NULL, claimed_at = NULL, updated_at = now()
         FROM unnest($1::uuid[], $2::text[], $3::text[]) AS s(id, reason, data)
         WHERE x.id = s.id AND x.status = 'pending' AND x.is_exit AND x.phase IS DISTINCT FROM 'submitted'
         RETURNING x.tenant_id, intent.record_json(x) AS record
       )
       ${OutboxRepository.insertSql('f', 'failed')}`,
      [failures.map((f) => f.id), failures.map((f) => f.reason), failures.map((f) => JSON.stringify(f.data))],
    );
  }

  /**
   * Marks signed sells submitted, in one statement (before they are sent: a sell is sent only
   * once marked), with the trigger, price and signed approve, each with a `tx_pending` event
   * carrying `{txHash, trigger, price}`. Only waiting exits are marked: of two rounds firing the
   * same exit, one marks it. Returns the ids marked.
   */
  async markSubmitted(fired: FiredExit[], targetBlock: bigint): Promise<Set<string>> {
    if (fired.length === 0) return new Set();
    const rows: { id: string }[] = await this.db.query(
      `WITH u AS (
         UPDATE intent.intents x
         SET phase = 'submitted', signed_tx = s.raw, signed_approve_tx = s.approve, tx_hash = s.hash, tx_nonce = s.nonce, target_block = $1,
             status_reason = NULL, fired_trigger = s.trigger, fired_price = s.price, claim_token = NULL, claimed_at = NULL,
             submitted_at = clock_timestamp(), updated_at = now(),
             status_data = jsonb_build_object('txHash', s.hash, 'trigger', s.trigger, 'price', s.price::text)
         FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::numeric[]) AS s(id, raw, approve, hash, nonce, trigger, price)
         WHERE x.id = s.id AND x.status = 'pending' AND x.is_exit AND x.phase IS DISTINCT FROM 'submitted'
         RETURNING x.id, x.tenant_id, intent.record_json(x) AS record
       ),
       e AS (${OutboxRepository.insertSql('u', 'tx_pending')})
       SELECT id FROM u`,
      [
        targetBlock.toString(),
        fired.map((f) => f.id),
        fired.map((f) => f.raw),
        fired.map((f) => f.approveRaw),
        fired.map((f) => f.hash),
        fired.map((f) => f.nonce.toString()),
        fired.map((f) => f.trigger),
        fired.map((f) => f.price.toString()),
      ],
    );
    return new Set(rows.map((r) => r.id));
  }

  /** A sent exit goes out again for a later block (bundles): its target moves on. */
  async retarget(ids: string[], targetBlock: bigint): Promise<void> {
    if (ids.length === 0) return;
    await this.db.query(`UPDATE intent.intents SET target_block = $2 WHERE id = ANY($1::uuid[]) AND status = 'pending' AND phase = 'submitted'`, [
      ids,
      targetBlock.toString(),
    ]);
  }
}

/** A ratio as the exact decimal the database stores (JS prints a number's shortest exact form). */
function ratio(v: number | null): string | null {
  return v === null ? null : String(v);
}
