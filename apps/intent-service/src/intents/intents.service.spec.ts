import { encodeSearchCursor, type IntentRecord } from '@tradeinfra/contracts';
import { signBuyIntent } from '@tradeinfra/executor';
import { Wallet, ZeroAddress } from 'ethers';
import type { IntentServiceEnv, WatchedChain } from '../config/env.js';
import type { OutboxRelay } from '../outbox/outbox.relay.js';
import type { TokenFacts } from '../tokens/token-facts.js';
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

const EXECUTOR = '0x00000000000000000000000000000000000e0e0e';
/** Chain 1 has an executor; 56 does not. */
const env = {
  CHAIN_IDS: [1, 56, 137],
  IDEMPOTENCY_TTL_HOURS: 24,
  watchedChains: [{ chainId: 1, executor: EXECUTOR } as WatchedChain, { chainId: 56, executor: null } as WatchedChain],
} as IntentServiceEnv;
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
  const service = new IntentsService(repo as unknown as IntentsRepository, relay, env, () => NOW, { intentsCreated: () => undefined } as unknown as TokenFacts);
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

describe('IntentsService: wallet intents', () => {
  const owner = Wallet.createRandom();
  async function walletBody(fields: Record<string, unknown> = {}, signer = owner) {
    const b = { ...body, wallet: owner.address, buyAmount: '1000', bribe: '5', nonce: '42', ...fields };
    const terms = {
      wallet: b.wallet,
      token: b.tokenAddress,
      amount: BigInt(b.buyAmount),
      bribe: BigInt(b.bribe),
      expiry: BigInt(b.expiry),
      minIn: 0n,
      minOut: 0n,
      feeBps: 0,
      feeRecipient: ZeroAddress,
      firstOrFail: false,
      nonce: BigInt(b.nonce),
    };
    return { ...b, signature: await signBuyIntent(signer, terms, { chainId: b.chainId, executor: EXECUTOR }) };
  }
  const create = (service: IntentsService, b: unknown) => service.create({ tenantId: TENANT, idempotencyKey: null, body: b, kind: 'wallet' });

  it('stores a wallet intent whose signature is the wallet’s, with its nonce and signature', async () => {
    const { repo, service } = setup();
    repo.created = record(ID);
    const stored: unknown[] = [];
    repo.create = async (_t, _i, intent) => (stored.push(intent), record(ID));
    const b = await walletBody();
    await create(service, b);
    expect(stored).toEqual([expect.objectContaining({ nonce: '42', signature: b.signature, wallet: owner.address })]);
  });

  it('refuses another signer, changed terms, another chain’s domain and a chain without an executor, before storing', async () => {
    const { repo, service } = setup();
    expect(await codeOf(create(service, await walletBody({}, Wallet.createRandom())))).toBe(IntentErrorCode.BadWalletIntent);
    expect(await codeOf(create(service, { ...(await walletBody()), buyAmount: '1001' }))).toBe(IntentErrorCode.BadWalletIntent);
    expect(await codeOf(create(service, { ...(await walletBody()), nonce: '43' }))).toBe(IntentErrorCode.BadWalletIntent);
    expect(await codeOf(create(service, await walletBody({ chainId: 56 })))).toBe(IntentErrorCode.BadWalletIntent);
    // A well-formed but unrecoverable signature (r = s = 0).
    expect(await codeOf(create(service, { ...(await walletBody()), signature: `0x${'00'.repeat(64)}1b` }))).toBe(IntentErrorCode.BadWalletIntent);
    expect(repo.createCalls).toBe(0);
  });

  it('a bot intent body is not a wallet intent, and the reverse', async () => {
    const { repo, service } = setup();
    expect(await codeOf(create(service, body))).toBe('ValidationError');
    expect(await codeOf(service.create({ tenantId: TENANT, idempotencyKey: null, body: await walletBody() }))).toBe('ValidationError');
    expect(repo.createCalls).toBe(0);
  });
});

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
    repo.key = { requestHash: 'other', intentId: ID, intentIds: null, createdAt: new Date() };
    expect(await codeOf(service.create({ tenantId: TENANT, idempotencyKey: 'k', body }))).toBe(IntentErrorCode.IdempotencyKeyReused);
    repo.key = { requestHash: hashes[0]!, intentId: ID, intentIds: null, createdAt: new Date() };
    await expect(service.create({ tenantId: TENANT, idempotencyKey: 'k', body })).resolves.toEqual({ intent: record(ID), replayed: true });
    // Key order and address case do not change the hash.
    const reordered = { ...Object.fromEntries(Object.entries(body).reverse()), wallet: body.wallet.toUpperCase().replace('0X', '0x') };
    await expect(service.create({ tenantId: TENANT, idempotencyKey: 'k', body: reordered })).resolves.toMatchObject({ replayed: true });
  });

  it('creates anew when the key it collided with had outlived its TTL', async () => {
    const { repo, service } = setup();
    repo.key = { requestHash: 'x', intentId: ID, intentIds: null, createdAt: new Date(0) };
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

  it("replays a batch from the ids its key names, in order, and never from a single create's key", async () => {
    const { repo, service } = setup();
    const ids = ['0190f3a2-7b1c-7def-8abc-000000000002', ID];
    const hashes: string[] = [];
    Object.assign(repo, {
      createBatch: async (_t: string, _ids: string[], _i: unknown, claim: { requestHash: string } | null) => {
        hashes.push(claim!.requestHash);
        return null;
      },
      findByIds: async (_t: string, wanted: string[]) => wanted.map((id) => record(id)),
    });
    repo.key = { requestHash: 'other', intentId: ids[0]!, intentIds: ids, createdAt: new Date() };
    expect(await codeOf(service.createBatch({ tenantId: TENANT, idempotencyKey: 'k', body: [body, body] }))).toBe(IntentErrorCode.IdempotencyKeyReused);
    repo.key = { requestHash: hashes[0]!, intentId: ids[0]!, intentIds: ids, createdAt: new Date() };
    await expect(service.createBatch({ tenantId: TENANT, idempotencyKey: 'k', body: [body, body] })).resolves.toEqual({
      intents: ids.map((id) => record(id)),
      replayed: true,
    });
    // The single create of the same intent hashes differently: the batch's key is not its key.
    const single: string[] = [];
    repo.create = async (_t: string, _id: string, _b: unknown, claim: { requestHash: string } | null) => {
      single.push(claim!.requestHash);
      return null;
    };
    await service.create({ tenantId: TENANT, idempotencyKey: 'k', body }).catch(() => undefined);
    const batchOfOne: string[] = [];
    (repo as unknown as { createBatch: unknown }).createBatch = async (_t: string, _ids: string[], _i: unknown, claim: { requestHash: string }) => {
      batchOfOne.push(claim.requestHash);
      return null;
    };
    await service.createBatch({ tenantId: TENANT, idempotencyKey: 'k', body: [body] }).catch(() => undefined);
    expect(single[0]).not.toBe(batchOfOne[0]);
  });

  it('runs a bulk cancel again when the database picks it as a deadlock victim, at most three times', async () => {
    const { repo, service, wakes } = setup();
    let calls = 0;
    const deadlock = Object.assign(new Error('deadlock detected'), { driverError: { code: '40P01' } });
    Object.assign(repo, {
      cancelBatch: async (_t: string, ids: string[]) => {
        calls++;
        if (calls < 3) throw deadlock;
        return ids.map((id) => ({ id, status: 'cancelled', cancelled: true, reason: null }));
      },
    });
    await expect(service.cancelBatch({ tenantId: TENANT, body: { ids: [ID] } })).resolves.toEqual({
      results: [{ id: ID, status: 'cancelled', cancelled: true, reason: null }],
    });
    expect(calls).toBe(3);
    expect(wakes()).toBe(1);
    calls = -10;
    await expect(service.cancelBatch({ tenantId: TENANT, body: { ids: [ID] } })).rejects.toBe(deadlock);
    expect(calls).toBe(-7);
  });
});
