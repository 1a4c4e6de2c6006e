import { encodeSearchCursor, type IntentRecord } from '@tradeinfra/contracts';
import type { IntentServiceEnv } from '../config/env.js';
import type { OutboxRelay } from '../outbox/outbox.relay.js';
import { IntentError, IntentErrorCode } from './intents.errors.js';
import type { IntentsRepository, SearchQuery, StoredIdempotencyKey } from './intents.repository.js';
import { IntentsService } from './intents.service.js';

const NOW = 1_800_000_000_000;
const TENANT = '0190f3a2-7b1c-7def-8abc-0123456789ab';
const ID = '0190f3a2-7b1c-7def-8abc-000000000001';

function record(id: string, status: IntentRecord['status'] = 'pending'): IntentRecord {
  return { id, status } as IntentRecord;
}

/** Repository stand-in: each test sets the answers it needs. */
class FakeIntents {
  created: IntentRecord | null = null;
  key: StoredIdempotencyKey | null = null;
  staleRelease = false;
  byId = new Map<string, IntentRecord>();
  searchPage = { intentsJson: '[]', moreAfter: null as string | null };
  lastSearch: SearchQuery | null = null;
  cancelled: IntentRecord | null = null;
  createCalls = 0;

  async create(_tenant: string, _id: string, _intent: unknown, _claim: { requestHash: string } | null): Promise<IntentRecord | null> {
    this.createCalls++;
    return this.created;
  }
  async findIdempotencyKey() {
    return this.key;
  }
  async releaseStaleIdempotencyKey() {
    if (!this.staleRelease) return false;
    this.staleRelease = false;
    this.created = record('fresh');
    return true;
  }
  async findById(_tenant: string, id: string) {
    return this.byId.get(id) ?? null;
  }
  async search(q: SearchQuery) {
    this.lastSearch = q;
    return this.searchPage;
  }
  async cancel() {
    return this.cancelled;
  }
  async statusOf(_tenant: string, id: string) {
    const intent = this.byId.get(id);
    return intent ? { status: intent.status, submitted: false } : null;
  }
}

const env = { CHAIN_IDS: [1, 56, 137], IDEMPOTENCY_TTL_HOURS: 24 } as IntentServiceEnv;
const body = {
  chainId: 1,
  wallet: '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed',
  tokenAddress: '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed',
  bribe: '0',
  buyAmount: '1',
  expiry: NOW / 1000 + 60,
};

function setup() {
  const repo = new FakeIntents();
  let wakes = 0;
  const relay = { wake: () => wakes++ } as unknown as OutboxRelay;
  const service = new IntentsService(repo as unknown as IntentsRepository, relay, env, () => NOW);
  return { repo, service, wakes: () => wakes };
}

async function codeOf(p: Promise<unknown>): Promise<IntentErrorCode | string> {
  try {
    await p;
  } catch (err) {
    return err instanceof IntentError ? err.code : (err as Error).name;
  }
  throw new Error('expected a failure');
}

describe('IntentsService', () => {
  it('creates and wakes the outbox relay', async () => {
    const { repo, service, wakes } = setup();
    repo.created = record(ID);
    await expect(service.create({ tenantId: TENANT, idempotencyKey: null, body })).resolves.toEqual({ intent: record(ID), replayed: false });
    expect(wakes()).toBe(1);
  });

  it('validates before touching the repository', async () => {
    const { repo, service } = setup();
    expect(await codeOf(service.create({ tenantId: TENANT, idempotencyKey: null, body: { ...body, chainId: 10 } }))).toBe('ValidationError');
    expect(repo.createCalls).toBe(0);
  });

  it('replays the intent of a used key with the same body, refuses another body', async () => {
    const { repo, service } = setup();
    repo.byId.set(ID, record(ID));
    await service.create({ tenantId: TENANT, idempotencyKey: 'k', body }).catch(() => undefined);
    // Learn the hash the service computes for `body` by letting the key match it.
    const hashes: string[] = [];
    repo.create = async (_t: string, _id: string, _b: unknown, claim: { requestHash: string } | null) => {
      hashes.push(claim!.requestHash);
      return null;
    };
    repo.key = { requestHash: 'other', intentId: ID, createdAt: new Date() };
    expect(await codeOf(service.create({ tenantId: TENANT, idempotencyKey: 'k', body }))).toBe(IntentErrorCode.IdempotencyKeyReused);
    repo.key = { requestHash: hashes[0]!, intentId: ID, createdAt: new Date() };
    await expect(service.create({ tenantId: TENANT, idempotencyKey: 'k', body })).resolves.toEqual({ intent: record(ID), replayed: true });
    // Key order and address case do not change the hash.
    const reordered = { ...Object.fromEntries(Object.entries(body).reverse()), wallet: body.wallet.toUpperCase().replace('0X', '0x') };
    await expect(service.create({ tenantId: TENANT, idempotencyKey: 'k', body: reordered })).resolves.toMatchObject({ replayed: true });
  });

  it('creates anew when the key it collided with had outlived its TTL', async () => {
    const { repo, service } = setup();
    repo.key = { requestHash: 'x', intentId: ID, createdAt: new Date(0) };
    repo.staleRelease = true;
    await expect(service.create({ tenantId: TENANT, idempotencyKey: 'k', body })).resolves.toEqual({ intent: record('fresh'), replayed: false });
    expect(repo.createCalls).toBe(2);
  });

  it('passes the page through and returns a cursor only when more follow', async () => {
    const { repo, service } = setup();
    repo.searchPage = { intentsJson: '[{"id":"a"},{"id":"b"}]', moreAfter: 'b' };
    const page = await service.search({ tenantId: TENANT, body: { addresses: [body.wallet], limit: 2 } });
    expect(repo.lastSearch).toMatchObject({ limit: 2, statuses: ['pending'], beforeId: null });
    expect(page).toEqual({ intentsJson: '[{"id":"a"},{"id":"b"}]', nextCursor: encodeSearchCursor('b') });
    repo.searchPage = { intentsJson: '[{"id":"a"}]', moreAfter: null };
    expect((await service.search({ tenantId: TENANT, body: { addresses: [body.wallet], limit: 2, cursor: encodeSearchCursor(ID) } })).nextCursor).toBeNull();
    expect(repo.lastSearch!.beforeId).toBe(ID);
    expect(await codeOf(service.search({ tenantId: TENANT, body: { addresses: [body.wallet], cursor: 'nope' } }))).toBe(IntentErrorCode.BadCursor);
  });

  it('cancels a pending intent; 404 for an unknown one, conflict for any other status', async () => {
    const { repo, service } = setup();
    repo.cancelled = record(ID, 'cancelled');
    await expect(service.cancel({ tenantId: TENANT, id: ID })).resolves.toEqual(record(ID, 'cancelled'));
    repo.cancelled = null;
    expect(await codeOf(service.cancel({ tenantId: TENANT, id: ID }))).toBe(IntentErrorCode.NotFound);
    repo.byId.set(ID, record(ID, 'completed'));
    expect(await codeOf(service.cancel({ tenantId: TENANT, id: ID }))).toBe(IntentErrorCode.NotPending);
  });
});
