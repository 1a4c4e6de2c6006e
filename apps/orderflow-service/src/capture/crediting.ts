import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { mevCaptureSubject, MevCaptureEventSchema, parseInput } from '@tradeinfra/contracts';
import type { Chain } from '../common/chains.js';
import { failpoint } from '../common/failpoint.js';
import { NatsIo } from '../common/nats-io.js';
import { ENV, type OrderflowServiceEnv } from '../config/env.js';
import { PrivateTxsRepository } from '../intake/private-txs.repository.js';
import { CapturesRepository, type Capture } from './captures.repository.js';
import { attribute, captureEventId, shareOf, weiToDecimal } from './measure.js';
import { OutboxRepository } from './outbox.repository.js';

const hex = (n: bigint) => `0x${n.toString(16)}`;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

interface Block {
  hash: string;
  timestamp: string;
  transactions: { hash: string; from: string; value: string }[];
}

/**
 * Captured value becomes cashback: once a capture's block has its confirmations and is still the
 * chain's, what the beneficiary gained in it is measured on chain, the source's share written as
 * one `mev.captured` event (outbox, same transaction as the capture's credit), then published
 * with its id as Nats-Msg-Id. A block reorged away forgets its captures and puts their targets
 * back to pending.
 */
@Injectable()
export class Crediting {
  private readonly logger = new Logger(Crediting.name);

  constructor(
    private readonly captures: CapturesRepository,
    private readonly outbox: OutboxRepository,
    private readonly txs: PrivateTxsRepository,
    private readonly nats: NatsIo,
    @Inject(ENV) private readonly env: OrderflowServiceEnv,
  ) {}

  /** Credits every capture of `chain` with its confirmations at `head`. */
  async creditConfirmed(chain: Chain, head: bigint, beneficiary: string): Promise<void> {
    const upTo = head - BigInt(this.env.ORDERFLOW_CONFIRMATIONS) + 1n;
    const ready = await this.captures.confirmable(chain.config.chainId, upTo);
    const byBlock = new Map<bigint, Capture[]>();
    for (const c of ready) byBlock.set(c.blockNumber, [...(byBlock.get(c.blockNumber) ?? []), c]);
    for (const [number, captures] of byBlock) await this.creditBlock(chain, number, captures, beneficiary);
  }

  private async creditBlock(chain: Chain, number: bigint, captures: Capture[], beneficiary: string): Promise<void> {
    const chainId = chain.config.chainId;
    const block = await chain.rpc.call<Block | null>('eth_getBlockByNumber', [hex(number), true]);
    if (!block) return; // the node is behind: next time
    const kept: Capture[] = [];
    for (const c of captures) {
      if (c.blockHash === block.hash) {
        kept.push(c);
        continue;
      }
      this.logger.warn(`chain ${chainId}: block ${number} of ${c.targetHash} was reorged away (${c.blockHash} → ${block.hash}); its capture is forgotten`);
      await this.forgetReorged(chainId, c.targetHash);
    }
    if (kept.length === 0) return;
    const paid = attribute(await this.gain(chain, number, block, beneficiary), new Map(kept.map((c) => [c.targetHash, c.bid])));
    const time = new Date(Number(BigInt(block.timestamp)) * 1000).toISOString();
    for (const c of kept) {
      const wei = paid.get(c.targetHash) ?? 0n;
      const credited = shareOf(wei, this.env.ORDERFLOW_SOURCE_SHARES.get(c.sourceId) ?? this.env.ORDERFLOW_SOURCE_SHARE_BPS);
      const event =
        credited > 0n
          ? parseInput(MevCaptureEventSchema, {
              id: captureEventId(chainId, c.targetHash, sha256),
              chainId,
              txHash: c.targetHash,
              sourceId: c.sourceId,
              generatedBySourceId: c.sourceId,
              asset: chain.config.nativeAsset,
              amount: weiToDecimal(credited),
              type: 'mev',
              time,
            })
          : null;
      const done = await this.captures.credit(
        chainId,
        c.targetHash,
        wei,
        credited,
        event ? (tx) => this.outbox.insert({ id: event.id, subject: mevCaptureSubject(chainId), payload: JSON.stringify(event) }, tx) : null,
      );
      if (done) this.logger.log(`chain ${chainId}: ${c.targetHash} paid ${wei} wei; credited ${credited} wei to ${c.sourceId}`);
      failpoint(this.env, 'after-credit');
    }
  }

  private async forgetReorged(chainId: number, targetHash: string): Promise<void> {
    await this.txs.reorged(chainId, targetHash, (tx) => this.captures.forget(chainId, targetHash, tx));
  }

  /**
   * What the beneficiary gained in block `number`: its balance after the block less its balance
   * before, plus what it spent in the block itself (its own transactions' value and fees).
   */
  private async gain(chain: Chain, number: bigint, block: Block, beneficiary: string): Promise<bigint> {
    const [after, before] = await chain.rpc.all<string>([
      { method: 'eth_getBalance', params: [beneficiary, hex(number)] },
      { method: 'eth_getBalance', params: [beneficiary, hex(number - 1n)] },
    ]);
    const own = block.transactions.filter((t) => t.from.toLowerCase() === beneficiary);
    let spent = own.reduce((sum, t) => sum + BigInt(t.value), 0n);
    if (own.length > 0) {
      const receipts = await chain.rpc.all<{ gasUsed: string; effectiveGasPrice: string }>(
        own.map((t) => ({ method: 'eth_getTransactionReceipt', params: [t.hash] })),
      );
      spent += receipts.reduce((sum, r) => sum + BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice), 0n);
    }
    return BigInt(after!) - BigInt(before!) + spent;
  }

  /** Publishes what the outbox holds (each event once per id: JetStream and the ledger both drop a repeat). */
  async relay(): Promise<void> {
    for (const event of await this.outbox.unpublished(100)) {
      await this.nats.publishEvent(event.subject, event.payload, event.id);
      failpoint(this.env, 'after-publish');
      await this.outbox.published(event.id);
    }
  }
}
