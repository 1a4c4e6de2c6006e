import { Inject, Injectable } from '@nestjs/common';
import {
  decodeSearchCursor,
  encodeSearchCursor,
  ListEntriesFilterSchema,
  MevCaptureEventSchema,
  parseInput,
  sourceId as sourceIdSchema,
  txHash as txHashSchema,
  uuid,
  type MevCaptureEvent,
  type PayoutViewer,
  type RawJsonReply,
} from '@tradeinfra/contracts';
import { uuidv7 } from 'uuidv7';
import { ENV, type PayoutServiceEnv } from '../config/env.js';
import { invalidField, LedgerError, LedgerErrorCode } from './ledger.errors.js';
import { LedgerRepository } from './ledger.repository.js';
import { UsdPrices } from './usd-prices.js';

const DEFAULT_LIMIT = 100;

@Injectable()
export class LedgerService {
  constructor(
    private readonly ledger: LedgerRepository,
    @Inject(ENV) private readonly env: PayoutServiceEnv,
    private readonly prices: UsdPrices,
  ) {}

  /**
   * A MEV-capture event checked against the contract and this ledger's chains and assets
   * (amount precision included). Throws a ValidationError naming the field.
   */
  validateEvent(input: unknown): MevCaptureEvent {
    const event = parseInput(MevCaptureEventSchema, input);
    if (!this.env.PAYOUT_CHAIN_IDS.includes(event.chainId)) {
      throw invalidField('chainId', `must be one of the supported chains: ${this.env.PAYOUT_CHAIN_IDS.join(', ')}`);
    }
    const decimals = this.env.PAYOUT_ASSETS.get(event.asset);
    if (decimals === undefined) {
      throw invalidField('asset', `must be one of the supported assets: ${[...this.env.PAYOUT_ASSETS.keys()].join(', ')}`);
    }
    const fraction = event.amount.split('.')[1] ?? '';
    if (fraction.length > decimals) throw invalidField('amount', `has more than ${decimals} decimals, the precision of ${event.asset}`);
    return event;
  }

  /**
   * Applies a batch of valid events, in the order they arrived; returns how many made a new
   * entry. The first event seen with an id wins: a later one with the same id (in this batch,
   * as in any later batch) makes nothing, whatever its amount.
   */
  apply(events: MevCaptureEvent[]): Promise<number> {
    const firstSeen = new Map<string, MevCaptureEvent>();
    for (const event of events) if (!firstSeen.has(event.id)) firstSeen.set(event.id, event);
    // Sorted by event id: replicas inserting overlapping batches take row locks in one order.
    const sorted = [...firstSeen.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return this.ledger.insertEntries(sorted.map((event) => ({ id: uuidv7(), event })));
  }

  /** An operator's record: same validation and idempotency as the stream. */
  async record(input: unknown): Promise<{ json: string; created: boolean }> {
    const event = this.validateEvent(input);
    const created = (await this.apply([event])) === 1;
    const json = await this.ledger.entryOfEvent(event.id);
    if (!json) throw new Error(`entry of event ${event.id} vanished`);
    return { json, created };
  }

  async byTx(viewer: PayoutViewer, hash: unknown): Promise<RawJsonReply> {
    const tx = parseInput(txHashSchema(), hash);
    return { json: await this.ledger.entriesByTx(viewer, tx) };
  }

  async list(viewer: PayoutViewer, query: unknown): Promise<RawJsonReply> {
    const q = parseInput(ListEntriesFilterSchema, query);
    const beforeId = q.cursor === undefined ? null : decodeSearchCursor(q.cursor);
    if (q.cursor !== undefined && beforeId === null) {
      throw invalidField('cursor', 'must be the x-next-cursor value of the previous page');
    }
    if (q.from && q.to && Date.parse(q.from) >= Date.parse(q.to)) throw invalidField('to', 'must be after from');
    const page = await this.ledger.listEntries(viewer, q, beforeId, q.limit ?? DEFAULT_LIMIT);
    return { json: page.json, nextCursor: page.moreAfter ? encodeSearchCursor(page.moreAfter) : null };
  }

  async cashback(viewer: PayoutViewer, id: unknown): Promise<RawJsonReply> {
    const source = parseInput(sourceIdSchema(), id);
    await this.checkSource(viewer, source);
    const { json, claimable } = await this.ledger.cashback(source);
    // Merkle's estimatedUsd (a JSON number, from exact decimal text), and what could not be priced.
    const { estimatedUsd, unpricedAssets } = await this.prices.estimate(claimable);
    return { json: `${json.slice(0, -1)},"estimatedUsd":${estimatedUsd},"unpricedAssets":${JSON.stringify(unpricedAssets)}}` };
  }

  async source(viewer: PayoutViewer, id: unknown): Promise<{ id: string; tenantId: string | null }> {
    const source = parseInput(sourceIdSchema(), id);
    return { id: source, tenantId: await this.checkSource(viewer, source) };
  }

  async registerSource(id: unknown, tenantId: unknown): Promise<{ id: string; tenantId: string }> {
    const source = parseInput(sourceIdSchema(), id);
    const tenant = parseInput(uuid('a tenant id'), tenantId);
    if (!(await this.ledger.registerSource(source, tenant))) {
      throw new LedgerError(LedgerErrorCode.Conflict, `Source ${source} is registered to another tenant`);
    }
    return { id: source, tenantId: tenant };
  }

  /** The (chain, asset) groups of the source with unclaimed PENDING entries. */
  claimableGroups(source: string): Promise<{ chainId: number; asset: string }[]> {
    return this.ledger.claimableGroups(source);
  }

  /**
   * The viewer may act on the source: operators always; a tenant only on its own registered
   * source. Returns the source's tenant (null: not registered).
   */
  async checkSource(viewer: PayoutViewer, source: string): Promise<string | null> {
    const tenant = await this.ledger.sourceTenant(source);
    const visible = viewer.admin ? tenant !== undefined : tenant === viewer.tenantId;
    if (!visible || tenant === undefined) throw new LedgerError(LedgerErrorCode.NotFound, `Source ${source} not found`);
    return tenant;
  }
}
