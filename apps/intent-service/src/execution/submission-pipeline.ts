import { type Logger } from '@nestjs/common';
import { FailureReason } from './checks.js';
import type { IntentsRepository } from '../intents/intents.repository.js';
import { type LaunchStamp, type Outcome, type ToSubmit } from './execution.repository.js';
import { type Failure } from './buy-terms.js';
import { type SignResult } from './signed-buy.js';
import { type Submission, type Submitter } from './submitter.js';

/** Behind a pending launch through relays, the fewest signed buys settled in one wave before the last signature is in. */
export const ONE_BUNDLE_WAVE = 25;

export interface Expected {
  id: string;
  wallet: string;
  nonce: bigint;
}

/** The most buys a round's first wave to the node or relays settles (the rest follow while these are sent). */
export const FIRST_WAVE = 10;

/** What settling a wave marked. */
type Settled = Awaited<ReturnType<IntentsRepository['settleRound']>>;

export interface RoundTotals {
  submitted: number;
  failed: number;
  deferred: number;
}

/**
 * Settles and sends a round's buys while their signatures arrive, in checking order, in waves
 * (one bundle at the end behind a pending launch through relays); never past a nonce gap: a
 * wallet's later buys go back to the next round (docs/design/execution-rounds.md).
 */
export class SubmissionPipeline {
  private expected: Expected[] = [];
  private next = 0;
  private readonly results = new Map<string, SignResult>();
  /** Per wallet, the lowest nonce that will not go out: nothing above it may be sent. */
  private readonly blockedFrom = new Map<string, bigint>();
  private failures: Failure[] = [];
  private ready: ToSubmit[] = [];
  private held: string[] = [];
  private flushing: Promise<void> | null = null;
  /** The waves' sends, one after the other, in settling order. */
  private sending: Promise<void> = Promise.resolve();
  /** Per wallet, its waves settled and not yet sent. */
  private readonly sendingWallets = new Map<string, number>();
  /** While set, nothing is settled (see gate). */
  private gated: Promise<void> | null = null;
  /** Every buy submitted in this round, in order. */
  private readonly bundled: Submission[] = [];
  private error: unknown = null;
  private readonly totals: RoundTotals = { submitted: 0, failed: 0, deferred: 0 };

  constructor(
    private readonly repo: Pick<IntentsRepository, 'settleRound' | 'recordOutcomes'>,
    private readonly submitter: Submitter,
    private readonly claimToken: string,
    private readonly targetBlock: bigint,
    /** The launch the round acts at: every intent it settles records it. */
    private readonly launch: LaunchStamp,
    private readonly logger: Pick<Logger, 'log' | 'warn'>,
    /** A pending launch's signed bytes: with relays, each wave's bundle is the launch and every buy sent so far. */
    private readonly behind?: string,
  ) {}

  /** Behind a pending launch through relays: one bundle at the end, not one per wave. */
  private get oneBundle(): boolean {
    return this.behind !== undefined && this.submitter.kind === 'bundle';
  }

  /** Every buy submitted so far, in sending order. */
  get sent(): readonly Submission[] {
    return this.bundled;
  }

  fail(failures: Failure[]): void {
    this.failures.push(...failures);
  }

  release(ids: string[]): void {
    this.held.push(...ids);
  }

  /** The buys to come, in checking order (each wallet's nonces ascending). */
  expect(buys: Expected[]): void {
    this.expected = buys;
    this.kick();
  }

  /**
   * Nothing is settled before `check` answers: the buys it names (each a wallet and nonce) do not
   * go out, nor do their wallets' later buys; they go back to the queue, for a later round.
   */
  gate(check: Promise<Pick<Expected, 'wallet' | 'nonce'>[]>): void {
    this.gated = check
      .then(
        (clashing) => {
          for (const b of clashing) this.block(b.wallet, b.nonce - 1n);
        },
        (err: unknown) => {
          this.error = err;
        },
      )
      .finally(() => {
        this.gated = null;
        this.kick();
      });
  }

  /** Signing results as they come (a batch's answer at once: one wave for them, not one per buy). */
  signedAll(results: Iterable<[string, SignResult]>): void {
    for (const [id, result] of results) this.results.set(id, result);
    this.advance();
    this.kick();
  }

  /** Waits for the last wave; what never became ready goes back to the queue. */
  async finish(): Promise<RoundTotals> {
    this.advance();
    for (const b of this.expected.slice(this.next)) this.held.push(b.id);
    this.next = this.expected.length;
    if (this.gated) await this.gated; // it kicks as it opens
    this.kick();
    // A send's end may start the next wave's settling, and a settling the next send.
    while (this.flushing || this.sendingWallets.size > 0) await (this.flushing ?? this.sending);
    if (this.error) throw this.error;
    if (this.oneBundle && this.bundled.length > 0) await this.submitter.submit(this.bundled, this.targetBlock, this.behind);
    return this.totals;
  }

  /** Moves the leading signed buys on: to `ready`, to `failures`, or (blocked) to `held`. */
  private advance(): void {
    while (this.next < this.expected.length) {
      const buy = this.expected[this.next]!;
      const result = this.results.get(buy.id);
      if (!result) break;
      this.next++;
      if (!result.ok) {
        this.failures.push({ id: buy.id, reason: result.reason, detail: result.detail });
        this.block(buy.wallet, buy.nonce);
      } else if (this.blocked(buy.wallet, buy.nonce)) {
        this.held.push(buy.id);
      } else {
        this.ready.push({ id: buy.id, wallet: buy.wallet, nonce: buy.nonce, raw: result.raw, hash: result.hash });
      }
    }
  }

  private blocked(wallet: string, nonce: bigint): boolean {
    const from = this.blockedFrom.get(wallet);
    return from !== undefined && nonce > from;
  }

  private block(wallet: string, nonce: bigint): void {
    const from = this.blockedFrom.get(wallet);
    if (from === undefined || nonce < from) this.blockedFrom.set(wallet, nonce);
  }

  private kick(): void {
    if (this.flushing || this.gated || this.error) return;
    if (this.ready.length === 0 && this.failures.length === 0 && this.held.length === 0) return;
    // One bundle at the end: nothing is sent early, so a wave is settled only once it is large
    // (a batch's answer) or the last signature is in; many small transactions would only slow
    // the signatures still coming, on the same thread.
    if (this.oneBundle && this.next < this.expected.length && this.ready.length < ONE_BUNDLE_WAVE) return;
    // A wave is settled while the one before is being sent, unless a wallet of its has a buy
    // there: a buy the node refuses must still hold that wallet's later buys back.
    if (this.ready.some((r) => this.sendingWallets.has(r.wallet))) return;
    this.flushing = this.flush().finally(() => {
      this.flushing = null;
      this.kick();
    });
  }

  private async flush(): Promise<void> {
    // A wallet blocked since these became ready (an earlier wave found a buy cancelled): its later buys wait.
    const late = this.ready.filter((r) => this.blocked(r.wallet, r.nonce));
    const unblocked = this.ready.filter((r) => !this.blocked(r.wallet, r.nonce));
    // A round's first wave is small: the node has its first buys sooner, and the rest settle while they are sent.
    const sendable = this.bundled.length === 0 && !this.oneBundle ? unblocked.slice(0, FIRST_WAVE) : unblocked;
    const [failures, held] = [this.failures, [...this.held, ...late.map((r) => r.id)]];
    [this.ready, this.failures, this.held] = [unblocked.slice(sendable.length), [], []];
    try {
      const { submitted, failed } = await this.repo.settleRound(this.claimToken, failures, sendable, held, this.targetBlock, this.launch);
      this.totals.failed += failed;
      this.totals.deferred += held.length;
      for (const f of failures) this.logger.log(`intent ${f.id}: failed (${f.reason}: ${f.detail})`);
      const sent = new Set(submitted.map((s) => s.id));
      for (const r of sendable) if (!sent.has(r.id)) this.block(r.wallet, r.nonce); // cancelled or expired first
      if (submitted.length === 0) return;
      this.totals.submitted += submitted.length;
      const wave = submitted.map((s) => ({ intentId: s.id, raw: s.raw, hash: s.hash }));
      this.bundled.push(...wave);
      // Behind a pending launch through relays, the launch can be in one bundle only: it goes
      // once, with every buy, when the round finishes (a bundle per wave would only be replaced).
      if (this.oneBundle) return;
      for (const { wallet } of submitted) this.sendingWallets.set(wallet, (this.sendingWallets.get(wallet) ?? 0) + 1);
      // Sent after the waves before it (checking order), while the next wave settles.
      this.sending = this.sending
        .then(() => this.send(submitted, wave))
        .finally(() => {
          for (const { wallet } of submitted) {
            const left = this.sendingWallets.get(wallet)! - 1;
            if (left === 0) this.sendingWallets.delete(wallet);
            else this.sendingWallets.set(wallet, left);
          }
          this.kick();
        });
    } catch (err) {
      this.error = err;
    }
  }

  /** Sends a settled wave; with the node, records the buys it refused and blocks their wallets. */
  private async send(submitted: Settled['submitted'], wave: Submission[]): Promise<void> {
    // Marked submitted already: after an earlier wave's failure the follow step sends them with the next block.
    if (this.error) return;
    try {
      const refused = await this.submitter.submit(wave, this.targetBlock);
      if (this.submitter.kind === 'rpc') {
        // The chain's node refused it (it will not be mined): the outcome is known now.
        const hashOf = new Map(submitted.map((s) => [s.id, s.hash]));
        const rejected: Outcome[] = [...refused]
          .filter(([, error]) => error !== null)
          .map(([id]) => ({ id, status: 'failed', reason: FailureReason.SubmissionRejected, executedAt: null, data: { txHash: hashOf.get(id)! } }));
        for (const s of submitted) {
          const error = refused.get(s.id);
          if (!error) continue;
          this.logger.warn(`intent ${s.id}: the node refused the buy: ${error}`);
          this.block(s.wallet, s.nonce); // the wallet's later buys would wait on this nonce forever
        }
        await this.repo.recordOutcomes(rejected);
      }
    } catch (err) {
      this.error = err;
    }
  }
}

/** `fn` over `items` with at most `limit` running at once; results in the items' order. */
export async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
