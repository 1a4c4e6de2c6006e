import { type Logger } from '@nestjs/common';
import { FailureReason } from '@tradeinfra/contracts';
import { type Reserves } from '../chain/uniswap-v2.js';
import { type Clock } from '../common/clock.js';
import { failpoint } from '../common/failpoint.js';
import { type IntentServiceEnv } from '../config/env.js';
import { type Block } from '../execution/buy-judgement.js';
import { type IntentsRepository } from '../intents/intents.repository.js';
import { readSenders, type ExitChain, type Firing, type SellJobs, type SenderReads, type SignedSell } from './exit-chain.js';
import { sendSells } from './exit-send.js';
import { quote, refusal, type SellSigner } from './exit-signing.js';
import { type ExitsRepository, type FiredExit } from './exits.repository.js';

/**
 * Step: fires a token's exits in one round: their sells quoted highest bribe first (under
 * `minOut`: not sent, noted), built and signed (or taken as built ahead at this block), marked
 * submitted in one statement (a sell is sent only once marked: the mark is the at-most-once
 * guard), then handed over; what is only bookkeeping is written after the hand-over.
 */
export class FireStep {
  /** Latency of the last rounds: trigger seen → last sell handed over (ms), for bench/. */
  readonly latencies: number[] = [];

  constructor(
    private readonly repo: Pick<ExitsRepository, 'markSubmitted' | 'fail' | 'note'>,
    private readonly intents: Pick<IntentsRepository, 'recordOutcomes'>,
    private readonly signer: SellSigner,
    private readonly now: Clock,
    private readonly logger: Logger,
    private readonly wake: () => void,
    private readonly env: Pick<IntentServiceEnv, 'INTENT_FAILPOINT'> = {},
  ) {}

  /**
   * The round's sells built at `head`: quoted, on the wallets' nonces and allowances (`read` at
   * `head`, else read now), signed where `ahead` allows.
   */
  async prepare(
    chain: ExitChain,
    head: Block,
    token: string,
    pool: Reserves,
    loss: bigint,
    firing: Firing[],
    ahead: boolean,
    read: Promise<SenderReads> | null = null,
    minTip = 0n,
  ): Promise<SellJobs> {
    const { quoted, short } = quote(pool, loss, firing);
    const senders = await (read ??
      readSenders(
        chain,
        token,
        quoted.map((f) => f.exit),
      ));
    const jobs = this.signer.build(chain, head, token, quoted, senders, minTip);
    await this.signer.sign(chain, jobs, BigInt(head.number) + 1n, ahead);
    return { head, jobs, short };
  }

  /**
   * Fires `firing` for the block after `head`. `rug`: the pending transaction that fired them
   * (its signed bytes; null when they could not be rebuilt), the sells go ahead of it (`minTip`:
   * their least priority fee, when they go to the node rather than a relay). `ready`:
   * the round built ahead at `head` (the rug path); `read`: the wallets' reads at `head`.
   */
  async fire(
    chain: ExitChain,
    head: Block,
    token: string,
    pool: Reserves,
    loss: bigint,
    firing: Firing[],
    seenAt: number,
    rug: { raw: string | null; minTip?: bigint } | null = null,
    ready: SellJobs | null = null,
    read: Promise<SenderReads> | null = null,
  ): Promise<void> {
    const t0 = this.now();
    const target = BigInt(head.number) + 1n;
    const ids = new Set(firing.map((f) => f.exit.id));
    const fresh = ready === null || ready.head.hash !== head.hash || ready.jobs.some((j) => !ids.has(j.f.exit.id));
    const round = fresh ? await this.prepare(chain, head, token, pool, loss, firing, false, read, rug?.minTip) : ready;
    if (!fresh) await this.signer.sign(chain, round.jobs, target, false);
    const t1 = this.now();
    const ok = round.jobs.flatMap((j) => (j.signed && !('failed' in j.signed) ? [{ job: j, signed: j.signed }] : []));
    const fired: FiredExit[] = ok.map(({ job, signed }) => ({
      id: job.f.exit.id,
      raw: signed.sell.raw,
      hash: signed.sell.hash,
      approveRaw: signed.approve,
      nonce: BigInt(job.sell.nonce),
      trigger: job.f.trigger,
      price: job.f.price,
    }));
    const marked = await this.repo.markSubmitted(fired, target);
    const t2 = this.now();
    const sending = ok.filter((s) => marked.has(s.job.f.exit.id)).map((s) => ({ id: s.job.f.exit.id, ...(s.signed as SignedSell) }));
    if (sending.length > 0) failpoint(this.env, 'exit-after-mark');
    const refused = await sendSells(chain, sending, target, rug?.raw ?? null);
    if (sending.length > 0) failpoint(this.env, 'exit-after-send');
    const t3 = this.now();
    this.latencies.push(t3 - seenAt);
    if (this.latencies.length > 1000) this.latencies.shift();
    for (const s of sending) chain.signedAhead.delete(s.id);

    // After the hand-over: what only records.
    const failures = round.jobs.flatMap((j) => {
      const why = refusal(j);
      return why ? [{ id: j.f.exit.id, reason: why.reason, data: { detail: why.detail.slice(0, 200) } }] : [];
    });
    await Promise.all([
      this.repo.fail(failures),
      this.repo.note(
        round.short.map((s) => ({ id: s.id, reason: FailureReason.MinOutNotMet, data: { minOut: s.minOut.toString(), quoted: s.quoted.toString() } })),
      ),
      this.intents.recordOutcomes(
        refused.map(([id, reason]) => ({
          id,
          status: 'failed',
          reason: FailureReason.SubmissionRejected,
          executedAt: null,
          data: { txHash: fired.find((f) => f.id === id)!.hash, detail: reason.slice(0, 200) },
        })),
      ),
    ]);
    this.wake();
    this.logger.log(
      `exits of ${token} on chain ${chain.config.chainId}: ${sending.length} sell(s) sent for block ${target}, ${failures.length} failed, ${round.short.length} under minOut, ` +
        `in ${t3 - seenAt} ms after ${rug ? 'the rug transaction' : 'the block'} was seen (before the round ${t0 - seenAt} ms, ` +
        `${fresh ? 'build and sign' : 'built ahead'} ${t1 - t0}, mark ${t2 - t1}, send ${t3 - t2})`,
    );
  }
}
