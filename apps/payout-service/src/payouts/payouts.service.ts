import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  checksumAddress,
  INVALID_CHECKSUM,
  parseInput,
  PayoutTransitionSchema,
  RequestPayoutSchema,
  sourceId as sourceIdSchema,
  uuid,
  type PayoutViewer,
  type RawJsonReply,
} from '@tradeinfra/contracts';
import { computeAddress } from 'ethers';
import { uuidv7 } from 'uuidv7';
import { ENV, type PayoutServiceEnv } from '../config/env.js';
import { LedgerError } from '../ledger/ledger.errors.js';
import { LedgerService } from '../ledger/ledger.service.js';
import { invalidField, PayoutError, PayoutErrorCode } from './payouts.errors.js';
import { PayoutsRepository, type ClaimAudit, type ClaimOutcome } from './payouts.repository.js';

@Injectable()
export class PayoutsService {
  private readonly logger = new Logger(PayoutsService.name);

  constructor(
    private readonly payouts: PayoutsRepository,
    private readonly ledger: LedgerService,
    @Inject(ENV) private readonly env: PayoutServiceEnv,
  ) {}

  /** The address of the treasury that pays `chainId`'s payouts (PAYOUT_SIGNER_KEY_<id>); NotFound when the service does not settle that chain. */
  treasury(chainId: unknown): { chainId: number; address: string } {
    const chain = this.env.settlementChains.find((c) => c.chainId === chainId);
    if (!chain) throw new PayoutError(PayoutErrorCode.NotFound, `This service does not settle chain ${String(chainId)}`);
    return { chainId: chain.chainId, address: computeAddress(chain.signerKey) };
  }

  /**
   * Claims the source's unclaimed PENDING entries of that chain and asset into a new payout.
   * An operator claiming a source of another tenant (or an unregistered one) is audited: a row
   * in `payout.admin_audit`, in the claim's transaction, and a log line.
   */
  async request(viewer: PayoutViewer, sourceId: unknown, body: unknown): Promise<RawJsonReply> {
    const source = parseInput(sourceIdSchema(), sourceId);
    const req = parseInput(RequestPayoutSchema, body);
    const sourceTenant = await this.ledger.checkSource(viewer, source);
    const address = checksumAddress(req.address);
    if (address === null) throw invalidField('address', INVALID_CHECKSUM);
    const audit = () =>
      viewer.admin && sourceTenant !== viewer.tenantId
        ? { id: uuidv7(), keyId: viewer.keyId ?? null, tenantId: viewer.tenantId, sourceTenantId: sourceTenant }
        : null;
    const email = req.email ?? null;
    if (req.chainId === undefined || req.asset === undefined) return this.requestAll(source, address, email, audit, sourceTenant);
    if (!this.env.PAYOUT_CHAIN_IDS.includes(req.chainId)) {
      throw invalidField('chainId', `must be one of the supported chains: ${this.env.PAYOUT_CHAIN_IDS.join(', ')}`);
    }
    if (!this.env.PAYOUT_ASSETS.has(req.asset)) {
      throw invalidField('asset', `must be one of the supported assets: ${[...this.env.PAYOUT_ASSETS.keys()].join(', ')}`);
    }
    const minimum = this.env.PAYOUT_MINIMUMS.get(req.asset) ?? '0';
    const outcome = await this.claim(source, address, req.chainId, req.asset, email, audit(), sourceTenant);
    if ('json' in outcome) return { json: outcome.json };
    if ('none' in outcome) {
      throw new PayoutError(PayoutErrorCode.Conflict, `Source ${source} has no unclaimed PENDING ${req.asset} entries on chain ${req.chainId}`, {
        reason: 'nothing_to_pay',
      });
    }
    throw new PayoutError(
      PayoutErrorCode.Conflict,
      `The unclaimed total ${outcome.belowMinimum} ${req.asset} is below the minimum payout of ${minimum} ${req.asset}`,
      { reason: 'below_minimum', total: outcome.belowMinimum, minimum },
    );
  }

  /**
   * Merkle's `{address, email?}`: every claimable (chain, asset) balance of the source becomes its
   * own payout (in kind, to `address`); balances under their minimum stay. Answers `{id, payouts}`:
   * `id` is the first payout's, `payouts` every payout made.
   */
  private async requestAll(
    source: string,
    address: string,
    email: string | null,
    audit: () => ClaimAudit | null,
    sourceTenant: string | null,
  ): Promise<RawJsonReply> {
    const made: string[] = [];
    const below: { chainId: number; asset: string; total: string; minimum: string }[] = [];
    for (const { chainId, asset } of await this.ledger.claimableGroups(source)) {
      const outcome = await this.claim(source, address, chainId, asset, email, audit(), sourceTenant);
      if ('json' in outcome) made.push(outcome.json);
      else if ('belowMinimum' in outcome) below.push({ chainId, asset, total: outcome.belowMinimum, minimum: this.env.PAYOUT_MINIMUMS.get(asset) ?? '0' });
    }
    if (made.length === 0) {
      if (below.length > 0) {
        throw new PayoutError(PayoutErrorCode.Conflict, `Every unclaimed balance of source ${source} is below its minimum payout`, {
          reason: 'below_minimum',
          balances: below,
        });
      }
      throw new PayoutError(PayoutErrorCode.Conflict, `Source ${source} has no unclaimed PENDING entries`, { reason: 'nothing_to_pay' });
    }
    const firstId = (JSON.parse(made[0]!) as { id: string }).id;
    return { json: `{"id":${JSON.stringify(firstId)},"payouts":[${made.join(',')}]}` };
  }

  private async claim(
    source: string,
    address: string,
    chainId: number,
    asset: string,
    email: string | null,
    audit: ClaimAudit | null,
    sourceTenant: string | null,
  ): Promise<ClaimOutcome> {
    const id = uuidv7();
    const minimum = this.env.PAYOUT_MINIMUMS.get(asset) ?? '0';
    const outcome = await this.payouts.claim({ id, sourceId: source, address, chainId, asset, minimum, email, audit });
    if ('json' in outcome && audit) {
      this.logger.warn(
        `admin audit: key ${audit.keyId ?? '-'} of tenant ${audit.tenantId} requested payout ${id} of source ${source} ` +
          `(tenant ${sourceTenant ?? 'none'}): ${outcome.total} ${asset} on chain ${chainId} to ${address}`,
      );
    }
    return outcome;
  }

  /** The source's latest 100 payouts, newest first (the customer dashboard's list). */
  async bySource(viewer: PayoutViewer, sourceId: unknown): Promise<RawJsonReply> {
    const source = parseInput(sourceIdSchema(), sourceId);
    await this.ledger.checkSource(viewer, source);
    return { json: await this.payouts.listBySource(source, 100) };
  }

  async get(viewer: PayoutViewer, id: unknown): Promise<RawJsonReply> {
    return { json: (await this.visible(viewer, id)).json };
  }

  /** Operators: PENDING → TX_PENDING (tx hash) → PAID, or → TX_FAILED (entries released). PAID is final. */
  async transition(viewer: PayoutViewer, id: unknown, body: unknown): Promise<RawJsonReply> {
    const payout = await this.visible(viewer, id);
    const t = parseInput(PayoutTransitionSchema, body);
    const payoutId = parseInput(uuid('a payout id'), id);
    const json =
      t.status === 'TX_PENDING'
        ? await this.payouts.markSent(payoutId, t.txHash!)
        : t.status === 'PAID'
          ? await this.payouts.markPaid(payoutId)
          : await this.payouts.markFailed(payoutId);
    if (json) return { json };
    const now = (await this.payouts.find(payoutId))?.status ?? payout.status;
    throw new PayoutError(PayoutErrorCode.Conflict, `Payout ${payoutId} is ${now}; it cannot become ${t.status}`, { status: now });
  }

  private async visible(viewer: PayoutViewer, id: unknown): Promise<{ json: string; status: string }> {
    const payoutId = parseInput(uuid('a payout id'), id);
    const payout = await this.payouts.find(payoutId);
    if (payout) {
      try {
        await this.ledger.checkSource(viewer, payout.sourceId);
        return payout;
      } catch (err) {
        // Another tenant's: answered exactly like an unknown id. The database failing is not that.
        if (!(err instanceof LedgerError)) throw err;
      }
    }
    throw new PayoutError(PayoutErrorCode.NotFound, `Payout ${payoutId} not found`);
  }
}
