import { randomUUID } from 'node:crypto';
import { Transaction, Wallet, getAddress } from 'ethers';
import {
  SIGNING_BATCH_MAX,
  type LaunchType,
  type MerkleSigningRequest,
  type SigningBatchRequest,
  type SigningRequest,
  type UnsignedTransaction,
  JsonTooDeepError,
  parsePlainJson,
} from '@tradeinfra/contracts';
import { ethersTransaction, keccak256Bytes, matchSigned, signedTransaction, unsignedFields, unsignedSerialized } from '@tradeinfra/service-kit';
import { WebhookRefused, WebhookTimeout, type WebhookAnswer, type WebhookClient } from '../common/webhook-client.js';
import { FailureReason } from './checks.js';
import { recoverAddress, recoverSigner } from './recover.js';

/** A transaction the signer must sign, with the intent it belongs to. */
export interface SignJob {
  intentId: string;
  tenantId: string;
  webhookUrl: string | null;
  tx: UnsignedTransaction;
  launchBlock: bigint;
  targetBlock: bigint;
  /** What the webhook speaks (default `tradeinfra`, ours). */
  protocol?: 'merkle' | 'tradeinfra';
  /** The launch the buy goes behind, for Merkle's `launch` (its block: the launch's, or for a pending one the block the buy is sent for). */
  launch?: { type: LaunchType; txHash: string | null; blockNumber: bigint };
}

export type SignResult = { ok: true; raw: string; hash: string } | { ok: false; reason: FailureReason; detail: string };

/**
 * Checks that `raw` is exactly `tx`, signed by `tx.from`: an EIP-1559 transaction with the same
 * chain id, nonce, recipient, value, data, gas limit and fees, and no access list. Byte for byte
 * first (matchSigned: no parsing, ~0.1 ms for a 3 KB buy); anything that is not an exact,
 * canonical match goes through ethers, which says what differs.
 */
export function verifySigned(tx: UnsignedTransaction, raw: unknown): SignResult {
  if (typeof raw !== 'string' || !/^0x[0-9a-fA-F]+$/.test(raw) || raw.length > 2 + 2 * 64 * 1024) {
    return { ok: false, reason: FailureReason.SignatureInvalid, detail: 'not a hex-encoded signed transaction' };
  }
  const parts = raw.length % 2 === 0 ? matchSigned(unsignedFields(tx), Buffer.from(raw.slice(2), 'hex')) : null;
  if (!parts) return verifyParsed(tx, raw);
  const from = recoverSigner(parts.signingHash, parts.signature, parts.yParity);
  if (!from || from !== tx.from.toLowerCase()) return signedByOther(tx, from);
  return { ok: true, raw, hash: parts.hash };
}

function signedByOther(tx: UnsignedTransaction, from: string | null): SignResult {
  return {
    ok: false,
    reason: FailureReason.SignatureInvalid,
    detail: `signed by ${from ? getAddress(from) : 'nobody'}, not by the wallet ${getAddress(tx.from)}`,
  };
}

/** verifySigned through ethers' parser: what differs, or (an encoding the byte check does not take) the same answer. */
function verifyParsed(tx: UnsignedTransaction, raw: string): SignResult {
  const bad = (detail: string): SignResult => ({ ok: false, reason: FailureReason.SignatureInvalid, detail });
  let signed: Transaction;
  try {
    signed = Transaction.from(raw);
  } catch (err) {
    return bad(`not a signed transaction: ${(err as Error).message.slice(0, 120)}`);
  }
  if (!signed.signature || signed.type !== 2) return bad('not a signed EIP-1559 (type 2) transaction');
  const mismatches: string[] = [];
  const same = (field: string, got: unknown, want: unknown) => {
    if (got !== want) mismatches.push(field);
  };
  same('chainId', signed.chainId, BigInt(tx.chainId));
  same('nonce', BigInt(signed.nonce), BigInt(tx.nonce));
  same('to', signed.to === null ? null : signed.to.toLowerCase(), tx.to === null ? null : tx.to.toLowerCase());
  same('value', signed.value, BigInt(tx.value));
  same('data', signed.data.toLowerCase(), tx.data.toLowerCase());
  same('gasLimit', signed.gasLimit, BigInt(tx.gasLimit));
  same('maxFeePerGas', signed.maxFeePerGas, BigInt(tx.maxFeePerGas));
  same('maxPriorityFeePerGas', signed.maxPriorityFeePerGas, BigInt(tx.maxPriorityFeePerGas));
  if (signed.accessList && signed.accessList.length > 0) mismatches.push('accessList');
  if (mismatches.length > 0) return bad(`signed transaction differs in ${mismatches.join(', ')}`);
  const sig = signed.signature;
  const from = recoverAddress(signed.unsignedHash, sig.r, sig.s, sig.yParity);
  if (!from || from !== tx.from.toLowerCase()) return signedByOther(tx, from);
  return { ok: true, raw, hash: signed.hash! };
}

/** secp256k1's order, and its half (EIP-2: a transaction's s must not be above it). */
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const HALF_N = SECP256K1_N / 2n;

/** Merkle's signature webhook request for `job`'s transaction, with its unsigned fields (RLP) to sign against. */
export function merkleRequest(job: SignJob): { request: MerkleSigningRequest; fields: Buffer } {
  const { tx } = job;
  const launch = job.launch ?? { type: 'block' as const, txHash: null, blockNumber: job.launchBlock };
  const fields = unsignedFields(tx);
  const raw = unsignedSerialized(fields);
  const hex = (v: string | number) => `0x${BigInt(v).toString(16)}`;
  const request: MerkleSigningRequest = {
    intentId: job.intentId,
    launch: { type: launch.type, blockNumber: launch.blockNumber.toString(), launchTxHash: launch.txHash },
    tx: {
      to: tx.to,
      data: tx.data,
      value: hex(tx.value),
      chainId: hex(tx.chainId),
      gas: hex(tx.gasLimit),
      nonce: hex(tx.nonce),
      maxFeePerGas: hex(tx.maxFeePerGas),
      maxPriorityFeePerGas: hex(tx.maxPriorityFeePerGas),
    },
    // Merkle's page: "optional - only when launch type is a transaction".
    ...(launch.type === 'block' ? {} : { rawTx: `0x${raw.toString('hex')}` }),
    hash: `0x${Buffer.from(keccak256Bytes(raw)).toString('hex')}`,
  };
  return { request, fields };
}

/**
 * The signed transaction from Merkle's answer `{signature}`: 65 bytes r ‖ s ‖ v with v 0x1b or
 * 0x1c (the compact 64-byte form and v 0/1 are refused, as Merkle's page requires), r and s in
 * range and s low (EIP-2, else no node takes it), recovering to the wallet (`tx.from`).
 */
export function verifyMerkleSignature(tx: UnsignedTransaction, fields: Buffer, answer: unknown): SignResult {
  const bad = (detail: string): SignResult => ({ ok: false, reason: FailureReason.SignatureInvalid, detail });
  const signature = (answer as { signature?: unknown } | null)?.signature;
  if (typeof signature !== 'string') return bad('the answer must be {"signature": "0x<65 bytes>"}');
  if (/^0x[0-9a-fA-F]{128}$/.test(signature)) return bad('a compact (64-byte) signature: Merkle’s signature webhook needs the 65-byte form ending in 1b or 1c');
  if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) return bad('not a 65-byte hex signature (0x + 130 hex digits)');
  const v = parseInt(signature.slice(130), 16);
  if (v !== 27 && v !== 28) return bad(`the signature ends in ${signature.slice(130)}, not 1b or 1c`);
  const r = BigInt(`0x${signature.slice(2, 66)}`);
  const sValue = BigInt(`0x${signature.slice(66, 130)}`);
  if (r === 0n || r >= SECP256K1_N || sValue === 0n || sValue >= SECP256K1_N) return bad('r or s is out of range');
  if (sValue > HALF_N) return bad('s is in the upper half of the curve order (EIP-2): no node accepts such a transaction');
  const rs = Buffer.from(signature.slice(2, 130), 'hex');
  const yParity = (v - 27) as 0 | 1;
  const from = recoverSigner(keccak256Bytes(unsignedSerialized(fields)), rs, yParity);
  if (!from || from !== tx.from.toLowerCase()) return signedByOther(tx, from);
  const raw = signedTransaction(fields, yParity, rs);
  return { ok: true, raw: `0x${raw.toString('hex')}`, hash: `0x${Buffer.from(keccak256Bytes(raw)).toString('hex')}` };
}

/** Development signer: keys from the environment, for local chains only (see the config). */
export class DevSigner {
  private readonly wallets = new Map<string, Wallet>();

  constructor(privateKeys: string[]) {
    for (const key of privateKeys) {
      const wallet = new Wallet(key);
      this.wallets.set(wallet.address.toLowerCase(), wallet);
    }
  }

  holds(address: string): boolean {
    return this.wallets.has(address.toLowerCase());
  }

  /** The addresses it holds keys of (EIP-55). */
  addresses(): string[] {
    return [...this.wallets.values()].map((w) => w.address);
  }

  async sign(tx: UnsignedTransaction): Promise<SignResult> {
    const wallet = this.wallets.get(tx.from.toLowerCase());
    if (!wallet) return { ok: false, reason: FailureReason.NoSigner, detail: 'the development signer does not hold this wallet' };
    const signed = ethersTransaction(tx);
    signed.signature = wallet.signingKey.sign(signed.unsignedHash);
    return { ok: true, raw: signed.serialized, hash: signed.hash! };
  }
}

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
}

/** A webhook's `signedTransactions`, or the failure every buy it was asked for shares. */
type Exchange = { ok: true; signed: unknown[] } | { ok: false; failure: SignResult };
/** A webhook's answer, parsed, or the failure. */
type Answer = { ok: true; answer: unknown } | { ok: false; failure: SignResult };

/**
 * Asks the intent's signing webhook to sign its buy: one HMAC-signed POST of a SigningRequest,
 * answered within the deadline by `{signedTransactions: [raw, ...]}` in the request's order
 * (or, for intents whose webhook takes batches, one SigningBatchRequest for several buys: see
 * `signBatch`). Every answer is verified before use. A target that may not be called (scheme,
 * or an address that is not public unless WEBHOOK_ALLOW_PRIVATE) and a 3xx (redirects are not
 * followed) are `signer_refused`.
 */
export class WebhookSigner {
  constructor(private readonly options: WebhookSignerOptions) {}

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
    const request = build(Date.now() + this.options.timeoutMs);
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
    const timestamp = Math.floor(Date.now() / 1000);
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
