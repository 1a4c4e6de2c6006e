import { MERKLE_ERROR_OF_REASON, type IntentRecord } from '@tradeinfra/contracts';

const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The launch the intent was acted on at: its kind and transaction as the executor stamped them,
 * and its block as the executor wrote it (at a launch in a block, and with every outcome of a
 * buy), else once the block watcher has recorded it (null while the transaction is pending, or
 * when the recorded launch is another transaction).
 */
const LAUNCH = `CASE WHEN x.launch_type IS NULL THEN NULL ELSE json_build_object(
            'type', x.launch_type,
            'txHash', x.launch_tx_hash,
            'blockNumber', coalesce(x.launch_block, (SELECT l.block_number FROM intent.launches l
              WHERE l.chain_id = x.chain_id AND l.token = lower(x.token_address)
                AND (x.launch_tx_hash IS NULL OR l.tx_hash IS NULL OR l.tx_hash = x.launch_tx_hash))),
            'launchTxHash', x.launch_tx_hash) END`;

/** Merkle's `token`: the token and its deployer facts from `intent.tokens` (null until known). */
const TOKEN = `(SELECT json_build_object(
            'chainId', x.chain_id, 'address', x.token_address, 'deployer', t.deployer, 'deployerHash', t.deployer_tx_hash,
            'deployerBlocknumber', t.deployer_block_number, 'deployerTimestamp', t.deployer_timestamp)
          FROM (SELECT 1) one LEFT JOIN intent.tokens t ON t.chain_id = x.chain_id AND t.token = lower(x.token_address))`;

/** An exit's triggers and measurements; a buy's `exit` object as asked (null without one). */
const EXIT = `CASE WHEN x.is_exit THEN json_build_object(
            'amount', coalesce(x.exit_amount::text, 'all'), 'takeProfit', x.take_profit, 'stopLoss', x.stop_loss,
            'trailingStop', x.trailing_stop, 'onRug', x.on_rug, 'entryPrice', x.entry_price::text, 'followsIntentId', x.follows_intent_id,
            'highestPrice', x.highest_price::text, 'trigger', x.fired_trigger, 'price', x.fired_price::text, 'expiry', NULL)
          WHEN x.exit_spec IS NOT NULL THEN json_build_object(
            'amount', x.exit_spec->>'amount', 'takeProfit', (x.exit_spec->>'takeProfit')::numeric, 'stopLoss', (x.exit_spec->>'stopLoss')::numeric,
            'trailingStop', (x.exit_spec->>'trailingStop')::numeric, 'onRug', (x.exit_spec->>'onRug')::boolean, 'entryPrice', NULL,
            'followsIntentId', NULL, 'highestPrice', NULL, 'trigger', NULL, 'price', NULL, 'expiry', (x.exit_spec->>'expiry')::bigint) END`;

/** Merkle's `error`, from the statusReason (the contracts' merkleIntentError, as SQL). */
const MERKLE_ERROR = `CASE WHEN x.status IN ('completed', 'cancelled') THEN NULL ${Object.entries(MERKLE_ERROR_OF_REASON)
  .map(([reason, error]) => `WHEN x.status_reason = '${reason}' THEN '${error}'`)
  .join(' ')} WHEN x.status IN ('failed', 'error') THEN 'unknown' END`;

/**
 * The intent record (the contracts' IntentRecord) as SQL over a row `x` of `intent.intents`: the
 * one definition of what every intent endpoint, event and notification carries. Typed by the
 * record's keys, so a field added to the contract without its SQL (or the reverse) does not compile.
 */
export const INTENT_RECORD_FIELDS: { readonly [K in keyof IntentRecord]-?: string } = {
  id: 'x.id',
  status: 'x.status',
  chainId: 'x.chain_id',
  wallet: 'x.wallet',
  tokenAddress: 'x.token_address',
  bribe: 'x.bribe::text',
  buyAmount: 'x.buy_amount::text',
  expiry: 'extract(epoch FROM x.expires_at)::bigint',
  maxBuyTax: 'x.max_buy_tax',
  maxSellTax: 'x.max_sell_tax',
  minIn: 'x.min_in::text',
  minOut: 'x.min_out::text',
  minLiquidity: 'x.min_liquidity::text',
  feeBps: 'x.fee_bps',
  feeRecipient: 'x.fee_recipient',
  firstOrFail: 'x.first_or_fail',
  maxSlippageBps: 'x.max_slippage_bps',
  gasTip: 'x.gas_tip::text',
  createdAt: iso('x.created_at'),
  updatedAt: iso('x.updated_at'),
  txHash: 'x.tx_hash',
  executedAt: iso('x.executed_at'),
  statusReason: 'x.status_reason',
  statusData: 'x.status_data',
  notificationWebhookUrl: 'x.notification_webhook_url',
  webhookUrl: 'x.webhook_url',
  webhookBatch: 'x.webhook_batch',
  webhookProtocol: 'x.webhook_protocol',
  kind: `CASE WHEN x.is_exit THEN 'exit' WHEN x.signature IS NULL THEN 'bot' ELSE 'wallet' END`,
  nonce: 'x.intent_nonce::text',
  launch: LAUNCH,
  createdAtMs: 'floor(extract(epoch FROM x.created_at) * 1000)::bigint',
  error: MERKLE_ERROR,
  minBuy: 'x.min_in::text',
  token: TOKEN,
  exit: EXIT,
};

/** The record's fields before the Exits migration (no `exit`, no `is_exit`): what the earlier migrations' `down` restore from. */
export const RECORD_FIELDS_BEFORE_EXITS: Readonly<Record<string, string>> = (() => {
  const { exit: _exit, ...before } = INTENT_RECORD_FIELDS;
  return { ...before, kind: `CASE WHEN x.signature IS NULL THEN 'bot' ELSE 'wallet' END` };
})();

/**
 * `intent.record_json(x)`, defined from INTENT_RECORD_FIELDS. It is not a migration: the
 * service (re)creates it after every migration run (runMigrations), so it always matches this
 * file; the migrations that once defined it keep their own snapshot for `down`.
 */
export const RECORD_JSON_FUNCTION = recordJsonFunction(INTENT_RECORD_FIELDS);

/** `intent.record_json(x)` building a record of `fields` (a migration's `down` restores an earlier set). */
export function recordJsonFunction(fields: Readonly<Record<string, string>>): string {
  return `CREATE OR REPLACE FUNCTION "intent"."record_json"(x "intent"."intents") RETURNS json LANGUAGE sql STABLE AS $$
        SELECT json_build_object(${Object.entries(fields)
          .map(([key, sql]) => `\n          '${key}', ${sql}`)
          .join(',')}
        )
      $$`;
}
