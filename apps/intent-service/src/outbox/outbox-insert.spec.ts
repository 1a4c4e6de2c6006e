import { outboxInsert } from './outbox-insert.js';

describe('outboxInsert', () => {
  it('writes one event of the type per row of the CTE', () => {
    expect(outboxInsert('c', 'cancelled')).toBe(
      "INSERT INTO intent.outbox (id, type, tenant_id, intent) SELECT intent.uuid_v7(), 'cancelled', tenant_id, record FROM c",
    );
  });

  it('orders a batch’s events by id, takes the type from a column, and can count the events', () => {
    expect(outboxInsert('i', 'created', { ordered: true })).toBe(
      "INSERT INTO intent.outbox (id, type, tenant_id, intent) SELECT intent.uuid_v7(), 'created', tenant_id, record FROM (SELECT * FROM i ORDER BY id) o",
    );
    expect(outboxInsert('u', { column: 'status' }, { returning: true })).toBe(
      'INSERT INTO intent.outbox (id, type, tenant_id, intent) SELECT intent.uuid_v7(), status, tenant_id, record FROM u RETURNING 1',
    );
  });

  it('refuses what is not an event type or a plain name (no SQL can be smuggled in)', () => {
    expect(() => outboxInsert('c', 'created; DROP TABLE x' as never)).toThrow('unknown event type');
    expect(() => outboxInsert('c) x; --', 'created')).toThrow('not a CTE name');
    expect(() => outboxInsert('c', { column: 'status, 1' })).toThrow('not a column name');
  });
});
