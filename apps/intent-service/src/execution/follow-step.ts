import { type Logger } from '@nestjs/common';
import { type IntentsRepository } from '../intents/intents.repository.js';
import { type OutboxRelay } from '../outbox/outbox.relay.js';
import { followSubmitted } from './buy-follower.js';
import { planResends, type Block } from './buy-judgement.js';
import { type SubmittedIntent } from './execution.types.js';
import { type RoundChain } from './round-chain.js';

export interface FollowStepDeps {
  intents: Pick<IntentsRepository, 'recordOutcomes' | 'waitAgain'>;
  relay: Pick<OutboxRelay, 'wake'>;
  logger: Pick<Logger, 'log' | 'warn'>;
  /** Judges the submitted buys at the head (buy-follower.ts; tests pass a fake). */
  judge?: typeof followSubmitted;
}

/**
 * Step 5 of a round, follow: the buys already submitted, judged at the head (buy-follower.ts).
 * Mined → `completed` (or `failed`); missed with firstOrFail → `failed`/`not_included`; behind a
 * launch that never came → waiting again (and the chain's lost launches forgotten); otherwise
 * sent again, once per new block.
 */
export class FollowStep {
  /** Forgets the chain's pending launches that are no longer pending (set by the pending-launch watcher). */
  forgetGoneLaunches: (chainId: number) => Promise<void> = () => Promise.resolve();
  private readonly judge: typeof followSubmitted;

  constructor(private readonly deps: FollowStepDeps) {
    this.judge = deps.judge ?? followSubmitted;
  }

  /** `reading`: the buys submitted, as being read. True when intents wait again (their token may be executed at once). */
  async follow(chain: RoundChain, head: Block, reading: Promise<SubmittedIntent[]>): Promise<boolean> {
    const { intents, relay, logger } = this.deps;
    const submitted = await reading;
    if (submitted.length === 0) return false;
    let waitedAgain = false;
    const { outcomes, waitAgain, resend } = await this.judge(chain, submitted, head);
    if (outcomes.length > 0) {
      const changed = await intents.recordOutcomes(outcomes);
      if (changed > 0) relay.wake();
      for (const o of outcomes) logger.log(`intent ${o.id}: ${o.status}${o.reason ? ` (${o.reason})` : ''}`);
    }
    if (waitAgain.length > 0 && (await intents.waitAgain(waitAgain)) > 0) {
      relay.wake();
      await this.forgetGoneLaunches(chain.config.chainId);
      for (const w of waitAgain) logger.warn(`intent ${w.id}: waiting again (${w.reason}): launch ${w.launchTxHash} never came before its buy ${w.txHash}`);
      waitedAgain = true;
    }
    const headNumber = BigInt(head.number);
    if (resend.length > 0 && headNumber > chain.resentAt) {
      // A block came without them: send again for the next one (a node that has them ignores
      // it); behind their launch while it is still pending, with backups (buy-follower.ts).
      chain.resentAt = headNumber;
      for (const r of planResends(resend, headNumber, chain.submitter.kind === 'bundle')) {
        await chain.submitter.submit(r.submissions, r.targetBlock, r.behind);
      }
    }
    return waitedAgain;
  }
}
