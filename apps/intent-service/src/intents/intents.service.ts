import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  BulkCancelRequestSchema,
  createIntentRequestSchema,
  createWalletIntentRequestSchema,
  type CreateWalletIntentRequest,
  createIntentsBatchRequestSchema,
  decodeSearchCursor,
  encodeSearchCursor,
  IntentIdSchema,
  parseInput,
  SearchIntentsRequestSchema,
  TenantSearchIntentsRequestSchema,
  type CancelIntentMessage,
  type CancelIntentsMessage,
  type CancelIntentsReply,
  type CreateIntentMessage,
  type CreateIntentReply,
  type CreateIntentsMessage,
  type CreateIntentsReply,
  type GetIntentMessage,
  type IntentRecord,
  type SearchIntentsMessage,
  type SearchIntentsReply,
} from '@tradeinfra/contracts';
import { recoverBuyIntentSigner, recoverMerkleBuyIntentSigner } from '@tradeinfra/executor';
import { uuidv7 } from 'uuidv7';
import { CLOCK, type Clock } from '../common/clock.js';
import { ENV, type IntentServiceEnv } from '../config/env.js';
import { OutboxRelay } from '../outbox/outbox.relay.js';
import { TokenFacts } from '../tokens/token-facts.js';
import { CreateGroup } from './create-group.js';
import { IntentError, IntentErrorCode } from './intents.errors.js';
import { IntentsRepository, type NewIntent, type StoredIdempotencyKey } from './intents.repository.js';
import { toBuyIntent, toMerkleBuyIntent } from './wallet-intent.js';

@Injectable()
export class IntentsService {
  private readonly createSchema: ReturnType<typeof createIntentRequestSchema>;
  private readonly createWalletSchema: ReturnType<typeof createWalletIntentRequestSchema>;
  /** Per chain id, its IntentExecutor (wallet intents are accepted only there). */
  private readonly executors: Map<number, string>;
  private readonly batchSchema: ReturnType<typeof createIntentsBatchRequestSchema>;
  /** Single creates, written in groups when they arrive faster than one statement commits. */
  private readonly creates: CreateGroup;

  constructor(
    private readonly intents: IntentsRepository,
    private readonly outbox: OutboxRelay,
    @Inject(ENV) private readonly env: IntentServiceEnv,
    @Inject(CLOCK) clock: Clock,
    /** Told of every create: the tokens of new intents are looked up at once. */
    private readonly tokenFacts: TokenFacts,
  ) {
    const options = { chainIds: env.CHAIN_IDS, now: clock, allowHttpWebhooks: env.WEBHOOK_ALLOW_HTTP };
    this.createSchema = createIntentRequestSchema(options);
    this.createWalletSchema = createWalletIntentRequestSchema(options);
    this.executors = new Map(env.watchedChains.flatMap((c) => (c.executor ? [[c.chainId, c.executor] as const] : [])));
    this.batchSchema = createIntentsBatchRequestSchema(options);
    this.creates = new CreateGroup(intents);
  }

  async create(message: CreateIntentMessage): Promise<CreateIntentReply> {
    const intent: NewIntent = message.kind === 'wallet' ? this.verifiedWalletIntent(message.body) : parseInput(this.createSchema, message.body);
    const claim = message.idempotencyKey ? { key: message.idempotencyKey, requestHash: hashRequest(intent) } : null;

    // Two attempts at most: the second follows the release of a key older than the TTL.
    for (let attempt = 0; attempt < 2; attempt++) {
      const created = await this.creates.create(message.tenantId, uuidv7(), intent, claim);
      if (created) {
        this.outbox.wake();
        this.tokenFacts.intentsCreated();
        return { intent: created, replayed: false };
      }
      const stored = await this.storedClaim(message.tenantId, claim!);
      if (stored) {
        const intent = await this.intents.findById(message.tenantId, stored.intentId);
        if (!intent) throw new Error(`idempotency key points at missing intent ${stored.intentId}`);
        return { intent, replayed: true };
      }
    }
    throw keyBeingReused();
  }

  /**
   * A wallet intent whose signature is the wallet's (ECDSA, recovered off-chain) for this chain's
   * executor; anything else is refused before it is stored. The executor checks it again on-chain.
   */
  private verifiedWalletIntent(body: unknown): CreateWalletIntentRequest {
    const intent = parseInput(this.createWalletSchema, body);
    const executor = this.executors.get(intent.chainId);
    if (!executor) {
      throw new IntentError(IntentErrorCode.BadWalletIntent, `chainId: wallet intents are not available on chain ${intent.chainId} (no executor contract)`, [
        { path: 'chainId', message: `wallet intents are not available on chain ${intent.chainId} (no executor contract)` },
      ]);
    }
    let signer: string | null;
    try {
      const target = { chainId: intent.chainId, executor };
      signer =
        intent.nonce === null
          ? recoverMerkleBuyIntentSigner(toMerkleBuyIntent(intent), intent.signature, target)
          : recoverBuyIntentSigner(toBuyIntent({ ...intent, nonce: intent.nonce }), intent.signature, target);
    } catch {
      signer = null;
    }
    if (signer?.toLowerCase() !== intent.wallet.toLowerCase()) {
      const struct = intent.nonce === null ? "Merkle's 5-field BuyIntent (no nonce given)" : 'this BuyIntent';
      const message = `is not the wallet's EIP-712 signature of ${struct} (domain OPL/1, this chain, its executor)`;
      throw new IntentError(IntentErrorCode.BadWalletIntent, `signature: ${message}`, [{ path: 'signature', message }]);
    }
    return intent;
  }

  /**
   * Batch create (`POST /v1/intents`): every item is parsed as a single create parses its body,
   * and either all of them are stored (one statement, one `created` event each) or none. The
   * Idempotency-Key covers the whole batch, as it covers one intent in {@link create}.
   */
  async createBatch(message: CreateIntentsMessage): Promise<CreateIntentsReply> {
    const intents = parseInput(this.batchSchema, message.body);
    // A batch never hashes like a single intent: one key cannot replay across the two routes.
    const claim = message.idempotencyKey ? { key: message.idempotencyKey, requestHash: hashRequest({ batch: intents }) } : null;

    for (let attempt = 0; attempt < 2; attempt++) {
      const created = await this.intents.createBatch(
        message.tenantId,
        intents.map(() => uuidv7()),
        intents,
        claim,
      );
      if (created) {
        this.outbox.wake();
        this.tokenFacts.intentsCreated();
        return { intents: created, replayed: false };
      }
      const stored = await this.storedClaim(message.tenantId, claim!);
      if (stored) {
        const ids = stored.intentIds ?? [stored.intentId];
        const found = await this.intents.findByIds(message.tenantId, ids);
        if (found.length !== ids.length) throw new Error(`idempotency key ${claim!.key} points at missing intents`);
        return { intents: found, replayed: true };
      }
    }
    throw keyBeingReused();
  }

  /**
   * The key an earlier request of the same body took, or null if that key has just expired (and
   * was released). A key taken by another body is a conflict.
   */
  private async storedClaim(tenantId: string, claim: { key: string; requestHash: string }): Promise<StoredIdempotencyKey | null> {
    const stored = await this.intents.findIdempotencyKey(tenantId, claim.key);
    if (!stored) return null;
    if (await this.intents.releaseStaleIdempotencyKey(tenantId, claim.key, this.env.IDEMPOTENCY_TTL_HOURS)) {
      return null;
    }
    if (stored.requestHash !== claim.requestHash) {
      throw new IntentError(IntentErrorCode.IdempotencyKeyReused, 'Idempotency-Key was already used with a different request body', {
        path: 'headers.idempotency-key',
        message: 'was already used with a different request body',
      });
    }
    return stored;
  }

  async get(message: GetIntentMessage): Promise<IntentRecord> {
    const id = parseInput(IntentIdSchema, message.id);
    const intent = await this.intents.findById(message.tenantId, id);
    if (!intent) throw notFound(id);
    return intent;
  }

  async search(message: SearchIntentsMessage): Promise<SearchIntentsReply> {
    const query = parseInput(message.tenantWide === true ? TenantSearchIntentsRequestSchema : SearchIntentsRequestSchema, message.body);
    const beforeId = query.cursor === null ? null : decodeSearchCursor(query.cursor);
    if (query.cursor !== null && beforeId === null) {
      throw new IntentError(IntentErrorCode.BadCursor, 'cursor: must be the x-next-cursor value of the previous page', [
        { path: 'cursor', message: 'must be the x-next-cursor value of the previous page' },
      ]);
    }
    const page = await this.intents.search({
      tenantId: message.tenantId,
      wallets: query.addresses,
      statuses: query.status,
      beforeId,
      limit: query.limit,
    });
    return { intentsJson: page.intentsJson, nextCursor: page.moreAfter ? encodeSearchCursor(page.moreAfter) : null };
  }

  async cancel(message: CancelIntentMessage): Promise<IntentRecord> {
    const id = parseInput(IntentIdSchema, message.id);
    const cancelled = await this.intents.cancel(message.tenantId, id);
    if (cancelled) {
      this.outbox.wake();
      return cancelled;
    }
    const current = await this.intents.statusOf(message.tenantId, id);
    if (current === null) throw notFound(id);
    const { status } = current;
    if (status === 'pending' && current.submitted) {
      throw new IntentError(IntentErrorCode.NotPending, `Intent ${id} is executing: its buy was submitted, so it can no longer be cancelled`, {
        status,
        executing: true,
      });
    }
    throw new IntentError(IntentErrorCode.NotPending, `Intent ${id} is ${status}; only a pending intent can be cancelled`, {
      status,
    });
  }

  /**
   * Bulk cancel: each pending intent of the tenant among `ids` is cancelled, in one
   * transaction, each with its one `cancelled` event. Every id gets an answer, in order.
   */
  async cancelBatch(message: CancelIntentsMessage): Promise<CancelIntentsReply> {
    const { ids } = parseInput(BulkCancelRequestSchema, message.body);
    for (let attempt = 1; ; attempt++) {
      try {
        const results = await this.intents.cancelBatch(message.tenantId, ids);
        if (results.some((r) => r.cancelled)) this.outbox.wake();
        return { results };
      } catch (err) {
        // Rows are locked in id order, so a deadlock should not happen; if the database still
        // picks this transaction as a deadlock's victim, nothing was changed: run it again.
        if (!isDeadlock(err) || attempt >= 3) throw err;
      }
    }
  }
}

function keyBeingReused(): IntentError {
  return new IntentError(IntentErrorCode.IdempotencyKeyReused, 'Idempotency-Key is being reused; retry the request');
}

function notFound(id: string): IntentError {
  return new IntentError(IntentErrorCode.NotFound, `Intent ${id} not found`);
}

function isDeadlock(err: unknown): boolean {
  const e = err as { code?: string; driverError?: { code?: string } };
  return e?.code === '40P01' || e?.driverError?.code === '40P01';
}

/** Same key + same (normalised) body → same hash, whatever the key order or address case sent. */
function hashRequest(intent: object): string {
  return createHash('sha256').update(JSON.stringify(intent)).digest('hex');
}
