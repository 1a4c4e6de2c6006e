import { OutboxRepository } from './outbox.repository.js';

describe('OutboxRepository.insertSql', () => {
  it('writes one event of the type per row of the CTE', () => {
    expect(OutboxRepository.insertSql('c', 'cancelled')).toBe(
      "INSERT INTO intent.outbox (id, type, tenant_id, intent) SELECT intent.uuid_v7(), 'cancelled', tenant_id, record FROM c",
    );
  });

  it('orders a batch’s events by id, takes the type from a column, and can count the events', () => {
    expect(OutboxRepository.insertSql('i', 'created', { ordered: true })).toBe(
      "INSERT INTO intent.outbox (id, type, tenant_id, intent) SELECT intent.uuid_v7(), 'created', tenant_id, record FROM (SELECT * FROM i ORDER BY id) o",
    );
    expect(OutboxRepository.insertSql('u', { column: 'status' }, { returning: true })).toBe(
      'INSERT INTO intent.outbox (id, type, tenant_id, intent) SELECT intent.uuid_v7(), status, tenant_id, record FROM u RETURNING 1',
    );
  });

  it('refuses what is not an event type or a plain name (no SQL can be smuggled in)', () => {
    expect(() => OutboxRepository.insertSql('c', 'created; DROP TABLE x' as never)).toThrow('unknown event type');
    expect(() => OutboxRepository.insertSql('c) x; --', 'created')).toThrow('not a CTE name');
    expect(() => OutboxRepository.insertSql('c', { column: 'status, 1' })).toThrow('not a column name');
  });
});
