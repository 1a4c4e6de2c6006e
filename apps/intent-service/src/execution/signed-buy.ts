import { Transaction, Wallet, getAddress } from 'ethers';
import { type LaunchType, type MerkleSigningRequest, type UnsignedTransaction } from '@tradeinfra/contracts';
import { keccak256Bytes, matchSigned, signDigest, signedTransaction, signingHash, unsignedFields, unsignedSerialized } from '@tradeinfra/service-kit';
import { recoverAddress, recoverSigner } from '../chain/recover.js';
import { FailureReason } from './checks.js';

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

/** Development signer: keys from the environment, for local chains only (see the config); signs with libsecp256k1. */
export class DevSigner {
  private readonly wallets = new Map<string, Wallet>();
  private readonly keys = new Map<string, Uint8Array>();

  constructor(privateKeys: string[]) {
    for (const key of privateKeys) {
      const wallet = new Wallet(key);
      this.wallets.set(wallet.address.toLowerCase(), wallet);
      this.keys.set(wallet.address.toLowerCase(), Buffer.from(wallet.privateKey.slice(2), 'hex'));
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
    const key = this.keys.get(tx.from.toLowerCase());
    if (!key) return { ok: false, reason: FailureReason.NoSigner, detail: 'the development signer does not hold this wallet' };
    const fields = unsignedFields(tx);
    const { signature, recid } = signDigest(signingHash(fields), key);
    const raw = signedTransaction(fields, recid, signature);
    return { ok: true, raw: `0x${raw.toString('hex')}`, hash: `0x${Buffer.from(keccak256Bytes(raw)).toString('hex')}` };
  }
}
