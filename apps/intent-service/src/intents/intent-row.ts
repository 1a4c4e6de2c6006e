import { resolvedWebhookProtocol, type CreateIntentRequest } from '@tradeinfra/contracts';

/** What `create` stores: a bot intent, or a wallet intent (no webhook; its signature and nonce). */
export type NewIntent = Omit<CreateIntentRequest, 'webhookUrl' | 'webhookBatch' | 'webhookProtocol' | 'exit'> & {
  exit?: CreateIntentRequest['exit'];
  webhookUrl?: string | null;
  webhookBatch?: boolean | null;
  webhookProtocol?: CreateIntentRequest['webhookProtocol'];
  signature?: string | null;
  nonce?: string | null;
};

/** The columns an insert writes, and (for one intent) their values as parameters $1..$25. */
export const INSERT_COLUMNS = `id, tenant_id, status, chain_id, wallet, token_address, bribe, buy_amount, expires_at,
  max_buy_tax, max_sell_tax, min_in, min_out, min_liquidity, fee_bps, fee_recipient, first_or_fail,
  max_slippage_bps, gas_tip, notification_webhook_url, webhook_url, signature, intent_nonce, created_at, updated_at, webhook_batch, webhook_protocol, exit_spec`;
/** created_at is the instant in the id (UUIDv7), so newest-first by id is newest-first by createdAt. */
export const CREATED_AT = `to_timestamp(('x' || substr(replace($1::uuid::text, '-', ''), 1, 12))::bit(48)::bigint / 1000.0)`;
export const INSERT_VALUES = `$1, $2, 'pending', $3, $4, $5, $6, $7, to_timestamp($8), $9, $10, $11, $12, $13, $14, $15,
  $16, $17, $18, $19, $20, $21, $22, ${CREATED_AT}, ${CREATED_AT}, $23, $24, $25::jsonb`;

/** The SQL type of each parameter of INSERT_VALUES ($1..$25), for inserts from arrays (unnest). */
export const INSERT_PARAM_TYPES = (
  'uuid uuid integer text text numeric numeric float8 numeric numeric numeric numeric ' +
  'numeric integer text boolean integer numeric text text text numeric boolean text text'
).split(' ');

/** The parameters of one intent's insert ($1..$25), as INSERT_VALUES names them. */
export function createParams(tenantId: string, id: string, intent: NewIntent): unknown[] {
  return [
    id,
    tenantId,
    intent.chainId,
    intent.wallet,
    intent.tokenAddress,
    intent.bribe,
    intent.buyAmount,
    intent.expiry,
    numericOrNull(intent.maxBuyTax),
    numericOrNull(intent.maxSellTax),
    intent.minIn,
    intent.minOut,
    intent.minLiquidity,
    intent.feeBps,
    intent.feeRecipient,
    intent.firstOrFail,
    intent.maxSlippageBps,
    intent.gasTip,
    intent.notificationWebhookUrl,
    intent.webhookUrl ?? null,
    intent.signature ?? null,
    intent.nonce ?? null,
    intent.webhookBatch ?? null,
    resolvedWebhookProtocol(intent),
    exitSpec(intent.exit),
  ];
}

/** The parameters of a batch insert: the tenant, the ids, then one array per column ($1..$23). */
export function batchParams(tenantId: string, ids: string[], intents: CreateIntentRequest[]): unknown[] {
  const column = <T>(pick: (i: CreateIntentRequest) => T) => intents.map(pick);
  return [
    tenantId,
    ids,
    column((i) => i.chainId),
    column((i) => i.wallet),
    column((i) => i.tokenAddress),
    column((i) => i.bribe),
    column((i) => i.buyAmount),
    column((i) => i.expiry),
    column((i) => numericOrNull(i.maxBuyTax)),
    column((i) => numericOrNull(i.maxSellTax)),
    column((i) => i.minIn),
    column((i) => i.minOut),
    column((i) => i.minLiquidity),
    column((i) => i.feeBps),
    column((i) => i.feeRecipient),
    column((i) => i.firstOrFail),
    column((i) => i.maxSlippageBps),
    column((i) => i.gasTip),
    column((i) => i.notificationWebhookUrl),
    column((i) => i.webhookUrl),
    column((i) => i.webhookBatch),
    column((i) => resolvedWebhookProtocol(i)),
    column((i) => exitSpec(i.exit)),
  ];
}

/** A buy's `exit` object as stored (jsonb text), or null. */
function exitSpec(exit: CreateIntentRequest['exit'] | undefined): string | null {
  return exit ? JSON.stringify(exit) : null;
}

/** Taxes are exact decimals in the database; JS numbers print their shortest exact form. */
function numericOrNull(value: number | null): string | null {
  return value === null ? null : String(value);
}
