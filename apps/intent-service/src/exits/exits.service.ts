import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { createExitRequestSchema, parseInput, type CreateExitMessage, type CreateExitRequest, type CreateIntentReply } from '@tradeinfra/contracts';
import { uuidv7 } from 'uuidv7';
import { CLOCK, type Clock } from '../common/clock.js';
import { ENV, type IntentServiceEnv } from '../config/env.js';
import { IntentError, IntentErrorCode } from '../intents/intents.errors.js';
import { IntentsRepository } from '../intents/intents.repository.js';
import { OutboxRelay } from '../outbox/outbox.relay.js';
import { ExitsRepository } from './exits.repository.js';

/** Creates exits (`POST /v1/exit`); reads, searches and cancels are the intents' (IntentsService). */
@Injectable()
export class ExitsService {
  private readonly schema: ReturnType<typeof createExitRequestSchema>;

  constructor(
    private readonly exits: ExitsRepository,
    private readonly intents: IntentsRepository,
    private readonly outbox: OutboxRelay,
    @Inject(ENV) env: IntentServiceEnv,
    @Inject(CLOCK) clock: Clock,
  ) {
    this.schema = createExitRequestSchema({ chainIds: env.CHAIN_IDS, now: clock, allowHttpWebhooks: env.WEBHOOK_ALLOW_HTTP });
  }

  async create(message: CreateExitMessage): Promise<CreateIntentReply> {
    const exit = parseInput(this.schema, message.body);
    if (exit.followsIntentId !== null) await this.checkFollowed(message.tenantId, exit);
    const claim = message.idempotencyKey ? { key: message.idempotencyKey, requestHash: hashRequest({ exit }) } : null;
    const created = await this.exits.create(message.tenantId, uuidv7(), exit, claim);
    if (created) {
      this.outbox.wake();
      return { intent: created, replayed: false };
    }
    const stored = await this.intents.findIdempotencyKey(message.tenantId, claim!.key);
    if (!stored || stored.requestHash !== claim!.requestHash) {
      throw new IntentError(IntentErrorCode.IdempotencyKeyReused, 'Idempotency-Key was already used with a different request body', {
        path: 'headers.idempotency-key',
        message: 'was already used with a different request body',
      });
    }
    const intent = await this.intents.findById(message.tenantId, stored.intentId);
    if (!intent) throw new Error(`idempotency key points at missing intent ${stored.intentId}`);
    return { intent, replayed: true };
  }

  /** The followed buy must be the tenant's, completed, for the same chain, wallet and token. */
  private async checkFollowed(tenantId: string, exit: CreateExitRequest): Promise<void> {
    const buy = await this.exits.followedBuy(tenantId, exit.followsIntentId!);
    const refuse = (message: string) => {
      throw new IntentError(IntentErrorCode.BadExit, `followsIntentId: ${message}`, [{ path: 'followsIntentId', message }]);
    };
    if (!buy) return refuse('no buy intent of yours has this id');
    if (buy.chainId !== exit.chainId || buy.wallet.toLowerCase() !== exit.wallet.toLowerCase() || buy.token.toLowerCase() !== exit.tokenAddress.toLowerCase()) {
      return refuse('names a buy of another chain, wallet or token');
    }
    if (buy.status !== 'completed') return refuse(`names a buy that is ${buy.status}, not completed (a buy's own exit object waits for it)`);
  }
}

function hashRequest(body: object): string {
  return createHash('sha256').update(JSON.stringify(body)).digest('hex');
}
