import { randomUUID } from 'node:crypto';
import { getAddress } from 'ethers';
import { SIGNING_BATCH_MAX, type SigningBatchRequest, type SigningRequest, JsonTooDeepError, parsePlainJson } from '@tradeinfra/contracts';
import { WebhookRefused, WebhookTimeout, type WebhookAnswer, type WebhookClient } from '../common/webhook-client.js';
import { FailureReason } from './checks.js';
import { systemClock, type Clock } from '../common/clock.js';
import { merkleRequest, verifyMerkleSignature, verifySigned, type SignJob, type SignResult } from './signed-buy.js';

/** Most bytes of a signing webhook's answer read (one signed transaction is at most 128 KiB of hex). */
const MAX_ANSWER_BYTES = 1024 * 1024;
/** Most bytes of Merkle's answer read: `{"signature": "0x…"}` is under 200 bytes; room for extra fields. */
const MAX_MERKLE_ANSWER_BYTES = 16 * 1024;
/** What each further buy of a batch adds to that bound: one signed transaction's most hex, quoted. */
const MAX_SIGNED_ANSWER_BYTES = 2 * 64 * 1024 + 8;

export interface WebhookSignerOptions {
  timeoutMs: number;
  /** Signs a request body for a tenant: `v1=<hex HMAC>` over "<timestamp>.<body>". */
  sign(tenantId: string, timestamp: number, body: string): Promise<string>;
  /** The client for tenant-supplied URLs (address checks at connect time, no redirects). */
  client: WebhookClient;
  /** The wall clock (the service's CLOCK; the system clock when not given). */
  now?: Clock;
}

/** A webhook's `signedTransactions`, or the failure every buy it was asked for shares. */
type Exchange = { ok: true; signed: unknown[] } | { ok: false; failure: SignResult };
/** A webhook's answer, parsed, or the failure. */
type Answer = { ok: true; answer: unknown } | { ok: false; failure: SignResult };

/**
 * Asks an intent's signing webhook to sign its buy (one HMAC-signed POST, or one batch request
 * for a webhook that takes batches) and verifies every answer before use; a refused target or a
 * 3xx is `signer_refused` (docs/design/execution-rounds.md, Webhook signing).
 */
export class WebhookSigner {
  private readonly now: Clock;

  constructor(private readonly options: WebhookSignerOptions) {
    this.now = options.now ?? systemClock;
  }

  async sign(job: SignJob): Promise<SignResult> {
    if (job.protocol === 'merkle') return this.signMerkle(job);
    const answer = await this.exchange(job, 1, (deadline) => ({
      kind: 'sign',
      id: randomUUID(),
      intentId: job.intentId,
      chainId: job.tx.chainId,
      wallet: getAddress(job.tx.from),
      launchBlock: job.launchBlock.toString(),
      targetBlock: job.targetBlock.toString(),
      deadline,
      transactions: [job.tx],
    }));
    if (!answer.ok) return answer.failure;
    return verifySigned(job.tx, answer.signed[0]);
  }

  /**
   * Several buys of one tenant's intents that name the same webhook (and take batches), in one
   * SigningBatchRequest (at most SIGNING_BATCH_MAX): a result per job, in order. A failed
   * exchange (unreachable, timeout, non-2xx, not the right shape) fails every buy of it; a
   * `null` entry declines that buy alone (`signer_refused`); each signed one is verified alone.
   */
  async signBatch(jobs: SignJob[]): Promise<SignResult[]> {
    const [first] = jobs;
    if (!first) return [];
    if (jobs.length > SIGNING_BATCH_MAX) throw new Error(`signBatch: at most ${SIGNING_BATCH_MAX} buys per request`);
    const answer = await this.exchange(first, jobs.length, (deadline) => ({
      kind: 'signBatch',
      id: randomUUID(),
      chainId: first.tx.chainId,
      launchBlock: first.launchBlock.toString(),
      targetBlock: first.targetBlock.toString(),
      deadline,
      requests: jobs.map((job) => ({ intentId: job.intentId, wallet: getAddress(job.tx.from), transactions: [job.tx] })),
    }));
    if (!answer.ok) return jobs.map(() => answer.failure);
    return jobs.map((job, i) =>
      answer.signed[i] === null
        ? { ok: false, reason: FailureReason.SignerRefused, detail: 'the webhook declined to sign this buy' }
        : verifySigned(job.tx, answer.signed[i]),
    );
  }

  /**
   * Merkle's signature webhook: `{intentId, launch, tx, rawTx, hash}` answered by `{signature}`
   * (see MerkleSigningRequest); the buy is then built from `tx` and the signature, and must
   * recover to the wallet.
   */
  private async signMerkle(job: SignJob): Promise<SignResult> {
    const { request, fields } = merkleRequest(job);
    const answer = await this.post(job, randomUUID(), request, MAX_MERKLE_ANSWER_BYTES);
    if (!answer.ok) return answer.failure;
    return verifyMerkleSignature(job.tx, fields, answer.answer);
  }

  /** POSTs the request `build` makes (given its deadline) to `job`'s webhook, for `count` buys; its `signedTransactions` (`count` of them). */
  private async exchange(job: SignJob, count: number, build: (deadline: number) => SigningRequest | SigningBatchRequest): Promise<Exchange> {
    const fail = (reason: FailureReason, detail: string): Exchange => ({ ok: false, failure: { ok: false, reason, detail } });
    const request = build(this.now() + this.options.timeoutMs);
    const maxBodyBytes = MAX_ANSWER_BYTES + (count - 1) * MAX_SIGNED_ANSWER_BYTES;
    const posted = await this.post(job, request.id, request, maxBodyBytes);
    if (!posted.ok) return posted;
    const answer = posted.answer as { signedTransactions?: unknown } | null;
    const signed = answer?.signedTransactions;
    if (!Array.isArray(signed) || signed.length !== count) {
      return fail(
        FailureReason.SignatureInvalid,
        request.kind === 'sign'
          ? 'the answer must be {"signedTransactions": [<one raw transaction>]}'
          : `the answer must be {"signedTransactions": [...]} with one entry (a raw transaction or null) per request: ${count}`,
      );
    }
    return { ok: true, signed };
  }

  /**
   * POSTs `request` to `job`'s webhook with the HMAC headers (the tenant's secret), within the
   * signer's timeout; its answer parsed as JSON, or why there is none (refused target, timeout,
   * unreachable, 3xx or other non-2xx, too long, not JSON).
   */
  private async post(job: SignJob, requestId: string, request: object, maxBodyBytes: number): Promise<Answer> {
    const fail = (reason: FailureReason, detail: string): Answer => ({ ok: false, failure: { ok: false, reason, detail } });
    let url: URL;
    try {
      url = this.options.client.target(job.webhookUrl!);
    } catch (err) {
      return fail(FailureReason.SignerRefused, (err as Error).message);
    }
    const body = JSON.stringify(request);
    const timestamp = Math.floor(this.now() / 1000);
    let res: WebhookAnswer;
    try {
      res = await this.options.client.post(url, {
        timeoutMs: this.options.timeoutMs,
        maxBodyBytes,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'tradeinfra-signer/1',
          'x-signing-request-id': requestId,
          'x-signing-timestamp': String(timestamp),
          'x-signing-signature': await this.options.sign(job.tenantId, timestamp, body),
        },
        body,
      });
    } catch (err) {
      if (err instanceof WebhookRefused) return fail(FailureReason.SignerRefused, err.message);
      if (err instanceof WebhookTimeout) return fail(FailureReason.SignerTimeout, `no answer within ${this.options.timeoutMs} ms`);
      return fail(FailureReason.SignerUnreachable, (err as Error).message);
    }
    if (res.status >= 300 && res.status < 400) return fail(FailureReason.SignerRefused, `webhook answered ${res.status} (redirects are not followed)`);
    if (res.status < 200 || res.status >= 300) return fail(FailureReason.SignerRefused, `webhook answered ${res.status}`);
    if (res.body === null) return fail(FailureReason.SignatureInvalid, `the answer is longer than ${maxBodyBytes} bytes`);
    try {
      return { ok: true, answer: parsePlainJson(res.body) };
    } catch (err) {
      return fail(FailureReason.SignatureInvalid, err instanceof JsonTooDeepError ? err.message : 'the answer is not JSON');
    }
  }
}

/** Buys signed together: one request to a batching webhook (`batch`), or a buy alone. */
export interface SigningUnit<J> {
  batch: boolean;
  jobs: J[];
}

/**
 * A round's buys (in checking order) as signing requests: the buys of intents whose webhook
 * takes batches, grouped per tenant and webhook URL (at most `max` a request, checking order
 * kept within each), and every other buy alone. Units come in the order of their first buy, so
 * the earliest buys are asked for first. Pure.
 */
export function signingUnits<
  J extends { intent: { tenantId: string; webhookUrl: string | null; webhookBatch: boolean; webhookProtocol?: string; signature: string | null } },
>(jobs: J[], max = SIGNING_BATCH_MAX): SigningUnit<J>[] {
  const units: SigningUnit<J>[] = [];
  const open = new Map<string, SigningUnit<J>>();
  for (const job of jobs) {
    const { intent } = job;
    if (!intent.webhookBatch || !intent.webhookUrl || intent.signature || intent.webhookProtocol === 'merkle') {
      units.push({ batch: false, jobs: [job] });
      continue;
    }
    const key = `${intent.tenantId}\n${intent.webhookUrl}`;
    let unit = open.get(key);
    if (!unit || unit.jobs.length >= max) {
      unit = { batch: true, jobs: [] };
      open.set(key, unit);
      units.push(unit);
    }
    unit.jobs.push(job);
  }
  return units;
}
