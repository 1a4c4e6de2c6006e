import { FailureReason } from '@tradeinfra/contracts';
import { type Block } from '../execution/buy-judgement.js';
import { type Outcome } from '../execution/execution.types.js';
import { type IntentsRepository } from '../intents/intents.repository.js';
import { WITHDRAWAL, type Receipt } from './exit-calldata.js';
import { type ExitChain } from './exit-chain.js';
import { sendSells } from './exit-send.js';
import { type ExitsRepository, type SubmittedExit } from './exits.repository.js';

/**
 * Step: follows sent sells at a new head to one outcome each: mined (completed, with the native
 * received) or reverted; a nonce used by another transaction fails it. One not mined by its
 * target goes out again, as stored (its approve too), for the next block: a round that died
 * between marking and sending, or a restart, loses nothing.
 */
export class FollowStep {
  constructor(
    private readonly repo: Pick<ExitsRepository, 'retarget'>,
    private readonly intents: Pick<IntentsRepository, 'recordOutcomes'>,
  ) {}

  /** The outcomes recorded (their events written): the caller wakes the outbox relay when > 0. */
  async follow(chain: ExitChain, head: Block, submitted: SubmittedExit[]): Promise<number> {
    const receipts = await chain.rpc.all<Receipt | null>(submitted.map((s) => ({ method: 'eth_getTransactionReceipt', params: [s.txHash] })));
    const outcomes: Outcome[] = [];
    const unmined: SubmittedExit[] = [];
    const weth = chain.config.wrappedNative.toLowerCase();
    submitted.forEach((s, i) => {
      const receipt = receipts[i];
      if (!receipt) return void unmined.push(s);
      const data = { txHash: s.txHash, trigger: s.trigger, price: s.price };
      if (receipt.status !== '0x1') return void outcomes.push({ id: s.id, status: 'failed', reason: FailureReason.Reverted, executedAt: null, data });
      const out = receipt.logs.filter((l) => l.address.toLowerCase() === weth && l.topics[0] === WITHDRAWAL).reduce((sum, l) => sum + BigInt(l.data), 0n);
      outcomes.push({
        id: s.id,
        status: 'completed',
        reason: null,
        executedAt: new Date(Number(BigInt(head.timestamp)) * 1000),
        data: { ...data, amountOut: out.toString() },
      });
    });
    if (unmined.length > 0) {
      const counts = await chain.rpc.all<string>(unmined.map((s) => ({ method: 'eth_getTransactionCount', params: [s.wallet, 'latest'] })));
      const again: SubmittedExit[] = [];
      unmined.forEach((s, i) => {
        if (BigInt(counts[i]!) > s.nonce) {
          const data = { txHash: s.txHash, trigger: s.trigger, price: s.price };
          outcomes.push({ id: s.id, status: 'failed', reason: FailureReason.NonceUsed, executedAt: null, data });
        } else if (BigInt(head.number) >= s.targetBlock) again.push(s);
      });
      if (again.length > 0) {
        const target = BigInt(head.number) + 1n;
        await sendSells(
          chain,
          again.map((s) => ({ id: s.id, approve: s.approveRaw, sell: { raw: s.raw, hash: s.txHash } })),
          target,
        );
        await this.repo.retarget(
          again.map((s) => s.id),
          target,
        );
      }
    }
    return this.intents.recordOutcomes(outcomes);
  }
}
