import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  PAYOUT_ENTRIES_BY_TX,
  PAYOUT_ENTRIES_LIST,
  PAYOUT_ENTRY_RECORD,
  PAYOUT_SOURCE_CASHBACK,
  PAYOUT_SOURCE_GET,
  PAYOUT_SOURCE_REGISTER,
  type PayoutMessage,
  type RawJsonReply,
} from '@tradeinfra/contracts';
import { LedgerService } from './ledger.service.js';

type WithId<T = unknown> = PayoutMessage<T> & { id: unknown };

@Controller()
export class LedgerController {
  constructor(private readonly ledger: LedgerService) {}

  @MessagePattern(PAYOUT_ENTRIES_BY_TX)
  byTx(@Payload() m: PayoutMessage<{ hash: unknown }>): Promise<RawJsonReply> {
    return this.ledger.byTx(m.viewer, m.body.hash);
  }

  @MessagePattern(PAYOUT_ENTRIES_LIST)
  list(@Payload() m: PayoutMessage): Promise<RawJsonReply> {
    return this.ledger.list(m.viewer, m.body);
  }

  @MessagePattern(PAYOUT_ENTRY_RECORD)
  record(@Payload() m: PayoutMessage): Promise<{ json: string; created: boolean }> {
    return this.ledger.record(m.body);
  }

  @MessagePattern(PAYOUT_SOURCE_CASHBACK)
  cashback(@Payload() m: WithId): Promise<RawJsonReply> {
    return this.ledger.cashback(m.viewer, m.id);
  }

  /** The source, when the viewer may act on it (its tenant's key, or an operator): the gateway's check of `POST /v1/rpc?source=`. */
  @MessagePattern(PAYOUT_SOURCE_GET)
  async source(@Payload() m: WithId): Promise<{ id: string; tenantId: string | null }> {
    return this.ledger.source(m.viewer, m.id);
  }

  @MessagePattern(PAYOUT_SOURCE_REGISTER)
  register(@Payload() m: { id: unknown; tenantId: unknown }): Promise<{ id: string; tenantId: string }> {
    return this.ledger.registerSource(m.id, m.tenantId);
  }
}
