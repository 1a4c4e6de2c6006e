import { type Logger } from '@nestjs/common';
import { type IntentsRepository } from '../intents/intents.repository.js';
import { type ExecutedChain } from './chain-clients.js';
import { type LaunchedToken } from './execution.types.js';
import { type RoundChain } from './round-chain.js';
import { type Plan } from './round-planner.js';
import { type SignResult } from './signed-buy.js';
import { SubmissionPipeline, type RoundTotals } from './submission-pipeline.js';

/** A round being submitted: signatures go in as they come; finish() settles and sends the rest. */
export interface OpenRound {
  signed(results: [string, SignResult][]): void;
  /** Settles and sends what is left; the totals once the last buy is with the node or relay. */
  finish(): Promise<RoundTotals>;
  /** After finish: the backup bundles, and the head the buys count as sent at. */
  afterSent(): Promise<void>;
}

/**
 * Step 4 of a round, submit: settles the plan (failures recorded, empty-pool intents handed
 * back) and, as signatures arrive, marks the signed buys submitted (only those still pending) and
 * sends them, in checking order, never past a nonce gap (submission-pipeline.ts).
 */
export class SubmitStep {
  constructor(
    private readonly intents: Pick<IntentsRepository, 'settleRound' | 'recordOutcomes'>,
    private readonly logger: Pick<Logger, 'log' | 'warn'>,
  ) {}

  open(chain: RoundChain, claimToken: string, plan: Plan, launch: LaunchedToken): OpenRound {
    const stamp = { ...launch.launch, pendingFrom: launch.pending?.origin ?? null, block: launch.blockNumber };
    const pipeline = new SubmissionPipeline(this.intents, chain.submitter, claimToken, plan.targetBlock, stamp, this.logger, launch.pending?.raw);
    pipeline.fail(plan.failures);
    if (plan.release.length > 0) pipeline.release(plan.release);
    // Nonces are per sender: the wallet, or for wallet intents the relayer.
    pipeline.expect(plan.jobs.map((j) => ({ id: j.intent.id, wallet: j.tx.from.toLowerCase(), nonce: BigInt(j.tx.nonce) })));
    if (plan.poolCheck) pipeline.gate(plan.poolCheck.then((clashing) => clashing.map((j) => ({ wallet: j.tx.from.toLowerCase(), nonce: BigInt(j.tx.nonce) }))));
    return {
      signed: (results) => pipeline.signedAll(results),
      finish: () => pipeline.finish(),
      afterSent: () => sendBackups(chain, plan, launch, pipeline.sent),
    };
  }
}

/**
 * Behind a pending launch through relays: the buys that are not firstOrFail, alone, for the block
 * after the launch's (they land only once the launch is in). Then the buys count as sent for the
 * block after this head: the follow step sends them again only once a later block comes without them.
 */
async function sendBackups(
  chain: Pick<ExecutedChain, 'submitter'> & Pick<RoundChain, 'resentAt'>,
  plan: Plan,
  launch: LaunchedToken,
  sent: SubmissionPipeline['sent'],
): Promise<void> {
  if (launch.pending && chain.submitter.kind === 'bundle') {
    const firstOrFail = new Set(plan.jobs.filter((j) => j.intent.firstOrFail).map((j) => j.intent.id));
    const backup = sent.filter((s) => !firstOrFail.has(s.intentId));
    if (backup.length > 0) await chain.submitter.submit(backup, plan.targetBlock + 1n);
  }
  if (plan.targetBlock - 1n > chain.resentAt) chain.resentAt = plan.targetBlock - 1n;
}
