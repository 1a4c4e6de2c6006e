import { randomUUID } from 'node:crypto';
import { Transaction, Wallet, getAddress } from 'ethers';
import type { SigningRequest, UnsignedTransaction } from '@tradeinfra/contracts';
import { ethersTransaction, matchSigned, unsignedFields } from '@tradeinfra/service-kit';
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

export interface WebhookSignerOptions {
  timeoutMs: number;
  /** Signs a request body for a tenant: `v1=<hex HMAC>` over "<timestamp>.<body>". */
  sign(tenantId: string, timestamp: number, body: string): Promise<string>;
  /** The client for tenant-supplied URLs (address checks at connect time, no redirects). */
  client: WebhookClient;
}

/**
 * Asks the intent's signing webhook to sign its buy: one HMAC-signed POST of a SigningRequest,
 * answered within the deadline by `{signedTransactions: [raw, ...]}` in the request's order.
 * Every answer is verified before use. A target that may not be called (scheme, or an address
 * that is not public unless WEBHOOK_ALLOW_PRIVATE) and a 3xx (redirects are not followed) are
 * `signer_refused`.
 */
export class WebhookSigner {
  constructor(private readonly options: WebhookSignerOptions) {}

  async sign(job: SignJob): Promise<SignResult> {
    let url: URL;
    try {
      url = this.options.client.target(job.webhookUrl!);
    } catch (err) {
      return { ok: false, reason: FailureReason.SignerRefused, detail: (err as Error).message };
    }
    const deadline = Date.now() + this.options.timeoutMs;
    const request: SigningRequest = {
      kind: 'sign',
      id: randomUUID(),
      intentId: job.intentId,
      chainId: job.tx.chainId,
      wallet: getAddress(job.tx.from),
      launchBlock: job.launchBlock.toString(),
      targetBlock: job.targetBlock.toString(),
      deadline,
      transactions: [job.tx],
    };
    const body = JSON.stringify(request);
    const timestamp = Math.floor(Date.now() / 1000);
    let res: WebhookAnswer;
    try {
      res = await this.options.client.post(url, {
        timeoutMs: this.options.timeoutMs,
        maxBodyBytes: MAX_ANSWER_BYTES,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'tradeinfra-signer/1',
          'x-signing-request-id': request.id,
          'x-signing-timestamp': String(timestamp),
          'x-signing-signature': await this.options.sign(job.tenantId, timestamp, body),
        },
        body,
      });
    } catch (err) {
      if (err instanceof WebhookRefused) return { ok: false, reason: FailureReason.SignerRefused, detail: err.message };
      if (err instanceof WebhookTimeout) return { ok: false, reason: FailureReason.SignerTimeout, detail: `no answer within ${this.options.timeoutMs} ms` };
      return { ok: false, reason: FailureReason.SignerUnreachable, detail: (err as Error).message };
    }
    if (res.status >= 300 && res.status < 400) {
      return { ok: false, reason: FailureReason.SignerRefused, detail: `webhook answered ${res.status} (redirects are not followed)` };
    }
    if (res.status < 200 || res.status >= 300) return { ok: false, reason: FailureReason.SignerRefused, detail: `webhook answered ${res.status}` };
    if (res.body === null) return { ok: false, reason: FailureReason.SignatureInvalid, detail: `the answer is longer than ${MAX_ANSWER_BYTES} bytes` };
    let answer: { signedTransactions?: unknown };
    try {
      answer = JSON.parse(res.body) as typeof answer;
    } catch {
      return { ok: false, reason: FailureReason.SignatureInvalid, detail: 'the answer is not JSON' };
    }
    const signed = answer?.signedTransactions;
    if (!Array.isArray(signed) || signed.length !== 1) {
      return { ok: false, reason: FailureReason.SignatureInvalid, detail: 'the answer must be {"signedTransactions": [<one raw transaction>]}' };
    }
    return verifySigned(job.tx, signed[0]);
  }
}
