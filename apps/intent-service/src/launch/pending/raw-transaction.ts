import { Signature, Transaction, type TransactionLike } from 'ethers';
import { recoverAddress } from '../../chain/recover.js';

/** A transaction as `eth_getTransactionByHash` (or a pending-transaction feed) returns it. */
export interface RpcTransaction {
  hash: string;
  type?: string;
  chainId?: string;
  nonce: string;
  from: string;
  to: string | null;
  value: string;
  input: string;
  gas: string;
  gasPrice?: string;
  maxFeePerGas?: string;
  maxPriorityFeePerGas?: string;
  accessList?: { address: string; storageKeys: string[] }[];
  authorizationList?: { chainId: string; address: string; nonce: string; yParity: string; r: string; s: string }[];
  maxFeePerBlobGas?: string;
  blobVersionedHashes?: string[];
  v: string;
  r: string;
  s: string;
  yParity?: string;
  blockNumber?: string | null;
}

/** Why a pending transaction's signed bytes could not be rebuilt (it is then not used). */
export class UnverifiableTransaction extends Error {
  override readonly name = 'UnverifiableTransaction';
}

/**
 * The signed raw bytes of `tx`, rebuilt from the fields a node reports, after checking that they
 * hash to the transaction's own hash and recover to its sender. A bundle carries these bytes, so a
 * node that reported a field wrongly (or a feed that altered one) must never make us bundle a
 * different transaction than the one seen.
 */
export function rebuildRawTransaction(tx: RpcTransaction): string {
  const type = tx.type === undefined ? 0 : Number(tx.type);
  if (type === 3) throw new UnverifiableTransaction(`${tx.hash}: blob transactions (type 3) carry sidecars a node does not report`);
  if (![0, 1, 2, 4].includes(type)) throw new UnverifiableTransaction(`${tx.hash}: unknown transaction type ${tx.type}`);
  const like: TransactionLike = {
    type,
    nonce: Number(tx.nonce),
    to: tx.to,
    value: BigInt(tx.value),
    data: tx.input,
    gasLimit: BigInt(tx.gas),
    signature: signatureOf(tx, type),
  };
  if (tx.chainId !== undefined) like.chainId = BigInt(tx.chainId);
  if (type === 0 || type === 1) like.gasPrice = BigInt(tx.gasPrice ?? '0x0');
  else {
    like.maxFeePerGas = BigInt(tx.maxFeePerGas ?? '0x0');
    like.maxPriorityFeePerGas = BigInt(tx.maxPriorityFeePerGas ?? '0x0');
  }
  if (type !== 0) like.accessList = tx.accessList ?? [];
  if (type === 4) {
    like.authorizationList = (tx.authorizationList ?? []).map((a) => ({
      chainId: BigInt(a.chainId),
      address: a.address,
      nonce: BigInt(a.nonce),
      signature: Signature.from({ r: a.r, s: a.s, yParity: Number(a.yParity) as 0 | 1 }),
    }));
  }
  let rebuilt: Transaction;
  try {
    rebuilt = Transaction.from(like);
  } catch (err) {
    throw new UnverifiableTransaction(`${tx.hash}: ${(err as Error).message}`);
  }
  if (rebuilt.hash?.toLowerCase() !== tx.hash.toLowerCase()) {
    throw new UnverifiableTransaction(`${tx.hash}: the reported fields hash to ${rebuilt.hash}`);
  }
  // The sender recovered with libsecp256k1 (recover.ts): ethers' own curve takes ~3.5 ms, on the launch's path.
  const sig = rebuilt.signature!;
  const from = recoverAddress(rebuilt.unsignedHash, sig.r, sig.s, sig.yParity);
  if (from !== tx.from.toLowerCase()) {
    throw new UnverifiableTransaction(`${tx.hash}: signed by ${from ?? 'nobody'}, reported from ${tx.from}`);
  }
  return rebuilt.serialized;
}

function signatureOf(tx: RpcTransaction, type: number): Signature {
  try {
    if (type === 0) return Signature.from({ r: tx.r, s: tx.s, v: BigInt(tx.v) });
    const yParity = Number(tx.yParity ?? tx.v);
    if (yParity !== 0 && yParity !== 1) throw new Error(`yParity ${tx.yParity ?? tx.v}`);
    return Signature.from({ r: tx.r, s: tx.s, yParity });
  } catch (err) {
    throw new UnverifiableTransaction(`${tx.hash}: bad signature (${(err as Error).message})`);
  }
}
