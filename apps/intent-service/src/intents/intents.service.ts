import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  createIntentRequestSchema,
  decodeSearchCursor,
  encodeSearchCursor,
  IntentIdSchema,
  parseInput,
  SearchIntentsRequestSchema,
  type CancelIntentMessage,
  type CreateIntentMessage,
  type CreateIntentReply,
  type GetIntentMessage,
  type IntentRecord,
  type SearchIntentsMessage,
  type SearchIntentsReply,
} from '@tradeinfra/contracts';
import { uuidv7 } from 'uuidv7';
import { ENV, type IntentServiceEnv } from '../config/env.js';
import { OutboxRelay } from '../outbox/outbox.relay.js';
import { IntentError, IntentErrorCode } from './intents.errors.js';
import { IntentsRepository } from './intents.repository.js';

export const CLOCK = Symbol('Clock');
export type Clock = () => number;

@Injectable()
export class IntentsService {
  private readonly createSchema: ReturnType<typeof createIntentRequestSchema>;

  constructor(
    private readonly intents: IntentsRepository,
    private readonly outbox: OutboxRelay,
    @Inject(ENV) private readonly env: IntentServiceEnv,
    @Inject(CLOCK) clock: Clock,
  ) {
    this.createSchema = createIntentRequestSchema({ chainIds: env.CHAIN_IDS, now: clock, allowHttpWebhooks: env.WEBHOOK_ALLOW_HTTP });
  }

  async create(message: CreateIntentMessage): Promise<CreateIntentReply> {
    const intent = parseInput(this.createSchema, message.body);
    const claim = message.idempotencyKey
      ? { key: message.idempotencyKey, requestHash: hashRequest(intent) }
      : null;

    // Two attempts at most: the second follows the release of a key older than the TTL.
    for (let attempt = 0; attempt < 2; attempt++) {
      const created = await this.intents.create(message.tenantId, uuidv7(), intent, claim);
      if (created) {
        this.outbox.wake();
        return { intent: created, replayed: false };
      }
      const replay = await this.replay(message.tenantId, claim!);
      if (replay) return { intent: replay, replayed: true };
    }
    throw new IntentError(IntentErrorCode.IdempotencyKeyReused, 'Idempotency-Key is being reused; retry the request');
  }

  /** The intent an earlier request with the same key created, or null if that key has just expired. */
  private async replay(tenantId: string, claim: { key: string; requestHash: string }): Promise<IntentRecord | null> {
    const stored = await this.intents.findIdempotencyKey(tenantId, claim.key);
    if (!stored) return null;
    if (await this.intents.releaseStaleIdempotencyKey(tenantId, claim.key, this.env.IDEMPOTENCY_TTL_HOURS)) {
      return null;
    }
    if (stored.requestHash !== claim.requestHash) {
      throw new IntentError(
        IntentErrorCode.IdempotencyKeyReused,
        'Idempotency-Key was already used with a different request body',
        { path: 'headers.idempotency-key', message: 'was already used with a different request body' },
      );
    }
    const intent = await this.intents.findById(tenantId, stored.intentId);
    if (!intent) throw new Error(`idempotency key points at missing intent ${stored.intentId}`);
    return intent;
  }

  async get(message: GetIntentMessage): Promise<IntentRecord> {
    const id = parseInput(IntentIdSchema, message.id);
    const intent = await this.intents.findById(message.tenantId, id);
    if (!intent) throw notFound(id);
    return intent;
  }

  async search(message: SearchIntentsMessage): Promise<SearchIntentsReply> {
    const query = parseInput(SearchIntentsRequestSchema, message.body);
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
}

function notFound(id: string): IntentError {
  return new IntentError(IntentErrorCode.NotFound, `Intent ${id} not found`);
}

/** Same key + same (normalised) body → same hash, whatever the key order or address case sent. */
function hashRequest(intent: object): string {
  return createHash('sha256').update(JSON.stringify(intent)).digest('hex');
}
