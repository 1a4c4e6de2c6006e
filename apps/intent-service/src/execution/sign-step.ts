import { type Job } from './buy-terms.js';
import { type ExecutedChain } from './chain-clients.js';
import { type LaunchedToken } from './execution.types.js';
import { type SignJob, type SignResult } from './signed-buy.js';
import { signingUnits, type WebhookSigner } from './signer.js';
import { mapLimit } from './submission-pipeline.js';

/** Signing requests (a buy, or a batching webhook's buys) in flight at once per round. */
const SIGNING_CONCURRENCY = 256;

/**
 * Step 3 of a round, sign: has each planned buy signed and checked, a result each, handed on as
 * each request answers (the submit step settles and sends while the rest still sign). A wallet
 * intent's buy is signed by the chain's relayer; a bot intent's by its webhook (several in one
 * request where it takes batches) or, without a webhook, a development signer.
 */
export class SignStep {
  constructor(
    private readonly webhook: Pick<WebhookSigner, 'sign' | 'signBatch'>,
    private readonly concurrency = SIGNING_CONCURRENCY,
  ) {}

  async signAll(
    chain: Pick<ExecutedChain, 'wallets' | 'devSigner'>,
    jobs: Job[],
    targetBlock: bigint,
    launch: Pick<LaunchedToken, 'launch' | 'blockNumber'>,
    onSigned: (results: [string, SignResult][]) => void,
  ): Promise<void> {
    await mapLimit(signingUnits(jobs), this.concurrency, async (unit) => {
      const results = await this.signUnit(chain, unit, targetBlock, launch);
      onSigned(unit.jobs.map((job, i) => [job.intent.id, results[i]!]));
    });
  }

  private async signUnit(
    chain: Pick<ExecutedChain, 'wallets' | 'devSigner'>,
    unit: { batch: boolean; jobs: Job[] },
    targetBlock: bigint,
    launch: Pick<LaunchedToken, 'launch' | 'blockNumber'>,
  ): Promise<SignResult[]> {
    const signJob = ({ intent, tx }: Job): SignJob => ({
      intentId: intent.id,
      tenantId: intent.tenantId,
      webhookUrl: intent.webhookUrl,
      tx,
      launchBlock: targetBlock - 1n,
      targetBlock,
      protocol: intent.webhookProtocol,
      launch: { ...launch.launch, blockNumber: launch.blockNumber ?? targetBlock },
    });
    if (unit.batch) return this.webhook.signBatch(unit.jobs.map(signJob));
    const [job] = unit.jobs as [Job];
    if (job.intent.signature) return [await chain.wallets!.relayer.sign(job.tx)];
    if (!job.intent.webhookUrl) return [await chain.devSigner.sign(job.tx)];
    return [await this.webhook.sign(signJob(job))];
  }
}
