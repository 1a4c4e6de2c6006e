import { INTENT_EVENT_TYPES, type IntentEventType } from '@tradeinfra/contracts';

export interface OutboxInsertOptions {
  /** Events in the order of the rows' ids (a batch's events come out in id order). */
  ordered?: boolean;
  /** `RETURNING 1`: the statement counts the events written. */
  returning?: boolean;
}

/**
 * The one way an intent change writes its outbox event: the `INSERT INTO intent.outbox` of a
 * CTE, one event per row of `rows` (a CTE returning `tenant_id` and `record`, the rendered
 * IntentRecord, and `id` when `ordered`), in the same statement as the change, so the change and
 * its event commit together or not at all. `type` is an event type, or the name of a column of
 * `rows` holding it (e.g. the new `status`). The relay (OutboxRepository) then publishes it.
 */
export function outboxInsert(rows: string, type: IntentEventType | { column: string }, options: OutboxInsertOptions = {}): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(rows)) throw new Error(`outboxInsert: ${rows} is not a CTE name`);
  let typeSql: string;
  if (typeof type === 'string') {
    if (!INTENT_EVENT_TYPES.includes(type)) throw new Error(`outboxInsert: unknown event type ${type as string}`);
    typeSql = `'${type}'`;
  } else {
    if (!/^[a-z_][a-z0-9_]*$/.test(type.column)) throw new Error(`outboxInsert: ${type.column} is not a column name`);
    typeSql = type.column;
  }
  const from = options.ordered ? `(SELECT * FROM ${rows} ORDER BY id) o` : rows;
  return `INSERT INTO intent.outbox (id, type, tenant_id, intent) SELECT intent.uuid_v7(), ${typeSql}, tenant_id, record FROM ${from}${options.returning ? ' RETURNING 1' : ''}`;
}
