import { Controller } from '@nestjs/common';
import { NATS_ROUTES, type PayoutMessage, type RawJsonReply } from '@tradeinfra/contracts';
import { Handles, RouteMessage } from '@tradeinfra/service-kit';
import { LedgerService } from './ledger.service.js';

type WithId<T = unknown> = PayoutMessage<T> & { id: unknown };

@Controller()
export class LedgerController {
  constructor(private readonly ledger: LedgerService) {}

  @Handles(NATS_ROUTES.payoutEntriesByTx)
  byTx(@RouteMessage(NATS_ROUTES.payoutEntriesByTx) m: PayoutMessage<{ hash: unknown }>): Promise<RawJsonReply> {
    return this.ledger.byTx(m.viewer, m.body.hash);
  }

  @Handles(NATS_ROUTES.payoutEntriesList)
  list(@RouteMessage(NATS_ROUTES.payoutEntriesList) m: PayoutMessage): Promise<RawJsonReply> {
    return this.ledger.list(m.viewer, m.body);
  }

  @Handles(NATS_ROUTES.payoutEntryRecord)
  record(@RouteMessage(NATS_ROUTES.payoutEntryRecord) m: PayoutMessage): Promise<{ json: string; created: boolean }> {
    return this.ledger.record(m.body);
  }

  @Handles(NATS_ROUTES.payoutSourceCashback)
  cashback(@RouteMessage(NATS_ROUTES.payoutSourceCashback) m: WithId): Promise<RawJsonReply> {
    return this.ledger.cashback(m.viewer, m.id);
  }

  /** The source, when the viewer may act on it (its tenant's key, or an operator): the gateway's check of `POST /v1/rpc?source=`. */
  @Handles(NATS_ROUTES.payoutSourceGet)
  async source(@RouteMessage(NATS_ROUTES.payoutSourceGet) m: WithId): Promise<{ id: string; tenantId: string | null }> {
    return this.ledger.source(m.viewer, m.id);
  }

  @Handles(NATS_ROUTES.payoutSourceRegister)
  register(@RouteMessage(NATS_ROUTES.payoutSourceRegister) m: { id: unknown; tenantId: unknown }): Promise<{ id: string; tenantId: string }> {
    return this.ledger.registerSource(m.id, m.tenantId);
  }
}
