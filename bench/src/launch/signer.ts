// Signing for the bench's signing webhook, as a signer that "answers at once" would: the
// transaction's bytes built from its fields (service-kit's EIP-1559 encoding, no ethers objects),
// its signing hash with the native Keccak, and libsecp256k1 (the `secp256k1` package's native
// binding); inline or on worker threads. About 0.05 ms per 3 KB buy, against ~0.5 ms through
// ethers' Transaction.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { UnsignedTransaction } from '@tradeinfra/contracts';
import { signedTransaction, signingHash, unsignedFields } from '@tradeinfra/service-kit';
import { type HashSigner, type TransactionSigner } from '@tradeinfra/test-support';
import { getBytes, Wallet } from 'ethers';

interface Secp256k1 {
  ecdsaSign(digest: Uint8Array, key: Uint8Array): { signature: Uint8Array; recid: number };
}

/** (tx) → the raw signed transaction: exactly the fields sent, signed by `tx.from`'s key. */
export function makeSigner(keys: string[]): (tx: UnsignedTransaction) => string {
  const secp256k1 = createRequire(import.meta.url)('secp256k1') as Secp256k1;
  const secrets = new Map<string, Uint8Array>();
  for (const key of keys) secrets.set(new Wallet(key).address.toLowerCase(), getBytes(key));
  return (tx) => {
    const secret = secrets.get(String(tx.from).toLowerCase());
    if (!secret) throw new Error(`no key for ${tx.from}`);
    if (tx.type !== 2 || tx.accessList.length > 0) throw new Error('only EIP-1559 transactions without an access list are signed here');
    const fields = unsignedFields(tx);
    const { signature, recid } = secp256k1.ecdsaSign(signingHash(fields), secret);
    return `0x${signedTransaction(fields, recid as 0 | 1, signature).toString('hex')}`;
  };
}

/**
 * Merkle's signature webhook signer: `hash` signed with the wallet's key by libsecp256k1, as the
 * 65-byte r ‖ s ‖ v (v 0x1b / 0x1c) Merkle's page asks for; inline (one hash per request).
 */
export function makeHashSigner(keys: string[]): HashSigner {
  const secp256k1 = createRequire(import.meta.url)('secp256k1') as Secp256k1;
  const secrets = new Map<string, Uint8Array>();
  for (const key of keys) secrets.set(new Wallet(key).address.toLowerCase(), getBytes(key));
  return (wallet, hash) => {
    const t0 = performance.now();
    const secret = secrets.get(wallet.toLowerCase());
    if (!secret) return Promise.reject(new Error(`no key for ${wallet}`));
    const { signature, recid } = secp256k1.ecdsaSign(getBytes(hash), secret);
    return Promise.resolve({ signature: `0x${Buffer.from(signature).toString('hex')}${(27 + recid).toString(16)}`, signMs: performance.now() - t0 });
  };
}

/** What a signer thread answers for one request. */
export interface SignedMessage {
  id: number;
  raws?: string[];
  error?: string;
  signMs: number;
}

/** Signs inline (`threads` 0) or on the least busy of `threads` worker threads (signer-thread.ts). */
export function signerPool(keys: string[], threads: number): TransactionSigner {
  if (threads === 0) {
    const sign = makeSigner(keys);
    return (txs) => {
      const t0 = performance.now();
      return Promise.resolve({ signedTransactions: txs.map(sign), signMs: performance.now() - t0 });
    };
  }
  const pending = new Map<number, { resolve: (v: { signedTransactions: string[]; signMs: number }) => void; reject: (e: Error) => void }>();
  let nextId = 0;
  const workers = Array.from({ length: threads }, () => {
    const w = new Worker(join(import.meta.dirname, 'signer-thread.js'), { workerData: { keys } });
    const entry = { w, busy: 0 };
    w.on('message', (m: SignedMessage) => {
      entry.busy--;
      const p = pending.get(m.id)!;
      pending.delete(m.id);
      if (m.error !== undefined) p.reject(Object.assign(new Error(m.error), { signMs: m.signMs }));
      else p.resolve({ signedTransactions: m.raws!, signMs: m.signMs });
    });
    w.on('error', (err) => {
      process.stderr.write(`signer thread failed: ${err.stack}\n`);
      process.exit(1);
    });
    return entry;
  });
  return (txs) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      const entry = workers.reduce((a, b) => (b.busy < a.busy ? b : a));
      entry.busy++;
      entry.w.postMessage({ id, txs });
    });
}
