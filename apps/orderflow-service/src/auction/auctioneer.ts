import { Inject, Injectable, Logger } from '@nestjs/common';
import { CLOCK, type Clock, type RelayBundle } from '@tradeinfra/service-kit';
import type { Chain } from '../common/chains.js';
import { failpoint } from '../common/failpoint.js';
import { NatsIo } from '../common/nats-io.js';
import { ENV, type OrderflowServiceEnv } from '../config/env.js';
import { CapturesRepository } from '../capture/captures.repository.js';
import { PrivateTxsRepository, type PrivateTx } from '../intake/private-txs.repository.js';
import { decodeTransaction } from '../intake/transaction-checks.js';
import { BundleSimulator } from './bundle-simulator.js';
import { BundlesRepository, type Bid } from './bundles.repository.js';
import { SubmissionsRepository } from './submissions.repository.js';

interface Receipt {
  blockNumber: string;
  blockHash: string;
  transactionIndex: string;
  status: string;
}

/**
 * The auction of each pending private transaction, one round per block it may land in: the
 * highest valid bid wins (ties to the first), the decision is written before anything is sent,
 * then the bundle and the fallback go to the relays; mined targets are recorded with their
 * capture, late ones expire (docs/design/code-notes.md#auctioneer).
 */
@Injectable()
export class Auctioneer {
  private readonly logger = new Logger(Auctioneer.name);
  private readonly warned = new Set<string>();

  constructor(
    private readonly txs: PrivateTxsRepository,
    private readonly bundles: BundlesRepository,
    private readonly submissions: SubmissionsRepository,
    private readonly captures: CapturesRepository,
    private readonly simulator: BundleSimulator,
    private readonly nats: NatsIo,
    @Inject(ENV) private readonly env: OrderflowServiceEnv,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** One pass over the chain's pending transactions at `head`. */
  async run(chain: Chain, head: bigint, beneficiary: string | null, now = this.clock()): Promise<void> {
    const chainId = chain.config.chainId;
    await this.followReorgs(chain, head);
    const pending = await this.txs.pending(chainId);
    if (pending.length === 0) return;
    for (const p of pending.filter((t) => !t.hintPublished)) {
      // Its replica died between storing it and hinting it.
      this.nats.publishHint(chainId, p.hintJson);
      await this.txs.markHintPublished(chainId, p.hash);
    }
    const receipts = await chain.rpc.batch<Receipt | null>(pending.map((p) => ({ method: 'eth_getTransactionReceipt', params: [p.hash] })));
    for (const [i, p] of pending.entries()) {
      const reply = receipts[i];
      if (reply?.error) continue; // unknown this time: asked again next pass
      if (reply?.result) {
        await this.included(chain, p, reply.result);
        continue;
      }
      const block = head + 1n;
      if (block > p.maxBlock) await this.expire(chain, p);
      else await this.round(chain, p, block, head, beneficiary, now);
    }
  }

  private async round(chain: Chain, p: PrivateTx, block: bigint, head: bigint, beneficiary: string | null, now: number): Promise<void> {
    const chainId = chain.config.chainId;
    let decision = await this.submissions.decision(chainId, p.hash, block);
    if (decision?.sentAt) return;
    if (!decision) {
      if (block === p.firstBlock && now < p.receivedAt.getTime() + this.env.ORDERFLOW_AUCTION_WINDOW_MS) return; // round 1 still takes bids
      const winner = beneficiary ? await this.winner(chain, p, block, head, beneficiary) : null;
      decision = await this.submissions.decide(chainId, p.hash, block, winner);
    }
    const bid = decision.bundleId ? await this.bundles.get(decision.bundleId) : null;
    const fallback: RelayBundle = { txs: [p.raw], blockNumber: block };
    const sent: RelayBundle[] = bid
      ? [{ txs: [p.raw, ...bid.txs.map((t) => t.raw)], blockNumber: block, revertingTxHashes: bid.txs.filter((t) => t.canRevert).map((t) => t.hash) }, fallback]
      : [fallback];
    const answers = await chain.relays.send(sent);
    if (answers.some((a) => a === null)) {
      await this.submissions.markSent(chainId, p.hash, block);
      this.logger.log(
        `chain ${chainId}: ${p.hash} for block ${block}: ${bid ? `bundle ${bid.bundleHash} (bid ${bid.bid} wei from ${bid.searcher})` : 'alone (no bid)'}`,
      );
    } else {
      this.warnOnce(`${p.hash}:${block}`, `chain ${chainId}: no relay took ${p.hash} for block ${block}: ${answers.join('; ')} (retried)`);
    }
  }

  /** The best live bid for `block`: bids simulated on an older head are simulated again first; a bid that no longer passes is dropped. */
  private async winner(chain: Chain, p: PrivateTx, block: bigint, head: bigint, beneficiary: string): Promise<Bid | null> {
    const candidates = await this.bundles.candidates(chain.config.chainId, p.hash, block, this.env.ORDERFLOW_MAX_CANDIDATES);
    const live: Bid[] = [];
    const target = decodeTransaction(p.raw, Number.MAX_SAFE_INTEGER);
    for (const c of candidates) {
      if (c.simBlock >= head) {
        live.push(c);
        continue;
      }
      try {
        const backruns = c.txs.map((t) => ({ tx: decodeTransaction(t.raw, Number.MAX_SAFE_INTEGER), canRevert: t.canRevert }));
        const sim = await this.simulator.simulate(chain.config.chainId, beneficiary, target, backruns, head);
        if (sim.verdict.ok) {
          await this.bundles.resimulated(c.id, { bid: sim.verdict.bid, block: sim.block });
          live.push({ ...c, bid: sim.verdict.bid, simBlock: sim.block });
        } else {
          await this.bundles.resimulated(c.id, { dropped: sim.verdict.reason });
        }
      } catch (err) {
        this.logger.warn(`chain ${chain.config.chainId}: re-simulating bundle ${c.bundleHash} failed (left out of this round): ${(err as Error).message}`);
      }
    }
    live.sort((a, b) => (a.bid !== b.bid ? (a.bid > b.bid ? -1 : 1) : a.receivedAt.getTime() - b.receivedAt.getTime() || (a.id < b.id ? -1 : 1)));
    return live[0] ?? null;
  }

  /** The target is mined: recorded, with its winning backrun's capture when that landed right behind it in the same block. */
  private async included(chain: Chain, p: PrivateTx, receipt: Receipt): Promise<void> {
    const chainId = chain.config.chainId;
    const blockNumber = BigInt(receipt.blockNumber);
    let landed: Bid | null = null;
    for (const w of await this.bundles.winners(chainId, p.hash)) {
      const first = (await chain.rpc.call<Receipt | null>('eth_getTransactionReceipt', [w.txs[0]!.hash])) ?? null;
      if (first && first.blockHash === receipt.blockHash && BigInt(first.transactionIndex) > BigInt(receipt.transactionIndex)) {
        landed = w;
        break;
      }
    }
    const changed = await this.txs.included(chainId, p.hash, blockNumber, receipt.blockHash, async (tx) => {
      if (landed) {
        await this.captures.observe(
          { chainId, targetHash: p.hash, bundleId: landed.id, sourceId: p.sourceId, blockNumber, blockHash: receipt.blockHash, bid: landed.bid },
          tx,
        );
      }
    });
    if (!changed) return;
    this.logger.log(
      `chain ${chainId}: ${p.hash} mined in block ${blockNumber}${landed ? ` with the backrun of ${landed.searcher} (bid ${landed.bid} wei)` : ''}`,
    );
    if (landed) failpoint(this.env, 'after-observe');
  }

  /**
   * Included transactions whose block is not final yet (within ORDERFLOW_CONFIRMATIONS of the
   * head) and is no longer the chain's block at its height go back to pending (a capture of theirs
   * not credited yet is forgotten with them), so a reorg never loses a wallet's transaction.
   */
  private async followReorgs(chain: Chain, head: bigint): Promise<void> {
    const chainId = chain.config.chainId;
    const recent = await this.txs.includedSince(chainId, head - BigInt(this.env.ORDERFLOW_CONFIRMATIONS) + 1n);
    if (recent.length === 0) return;
    const numbers = [...new Set(recent.map((t) => t.blockNumber))];
    const blocks = await chain.rpc.batch<{ hash: string } | null>(
      numbers.map((n) => ({ method: 'eth_getBlockByNumber', params: [`0x${n.toString(16)}`, false] })),
    );
    const canonical = new Map(numbers.map((n, i) => [n, blocks[i]?.result?.hash]));
    for (const t of recent) {
      const hash = canonical.get(t.blockNumber);
      if (hash === undefined || hash === t.blockHash) continue; // unknown now (node behind), or unchanged
      this.logger.warn(`chain ${chainId}: block ${t.blockNumber} of ${t.hash} was reorged away (${t.blockHash} → ${hash}); pending again`);
      await this.txs.reorged(chainId, t.hash, (tx) => this.captures.forget(chainId, t.hash, tx));
    }
  }

  private async expire(chain: Chain, p: PrivateTx): Promise<void> {
    const chainId = chain.config.chainId;
    let status: 'expired' | 'public' = 'expired';
    if (p.useMempool) {
      try {
        await chain.rpc.call('eth_sendRawTransaction', [p.raw]);
        status = 'public';
      } catch (err) {
        this.logger.warn(`chain ${chainId}: ${p.hash} could not be sent to the mempool: ${(err as Error).message}`);
      }
    }
    if (await this.txs.markExpired(chainId, p.hash, status)) {
      this.logger.log(
        `chain ${chainId}: ${p.hash} passed its maxBlockNumber ${p.maxBlock} unmined${status === 'public' ? '; sent to the public mempool' : ''}`,
      );
    }
  }

  private warnOnce(key: string, message: string): void {
    if (this.warned.has(key)) return;
    if (this.warned.size > 10_000) this.warned.clear();
    this.warned.add(key);
    this.logger.warn(message);
  }
}
