import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { keccak256 } from 'ethers';

interface KeccakHash {
  update(data: Buffer): KeccakHash;
  digest(): Buffer;
}

/** The `keccak` package's native sponge (what its hash objects wrap). */
interface KeccakState {
  initialize(rate: number, capacity: number): void;
  absorb(data: Buffer): void;
  squeeze(length: number): Buffer;
}

const require = createRequire(import.meta.url);

/**
 * The `keccak` package's Keccak: its native binding (prebuilt for linux-x64, among others) where
 * it loads, else its JavaScript state machine. On this machine 15 µs for a 3 KB transaction and
 * 2.3 ms for a 600 KB bundle body, against 230 µs and ~60 ms for the curve library ethers ships.
 * A launch hashes every signed buy twice (its signing hash and its hash) and every relay request
 * body, and a simulation every storage slot of a mapping it reads (KECCAK256).
 *
 * The native sponge is used directly, one per thread, reset for each hash: the package's hash
 * objects are streams, and making one costs more than hashing 64 bytes (7.8 µs against 2.6).
 */
function nativeKeccak(): ((data: Buffer) => Buffer) | null {
  try {
    const keccakMain = require.resolve('keccak');
    const binding = createRequire(keccakMain)('node-gyp-build')(dirname(keccakMain)) as unknown;
    if (typeof binding !== 'function') return null;
    const state = new (binding as new () => KeccakState)();
    return (data) => {
      state.initialize(1088, 512);
      state.absorb(data);
      return state.squeeze(32);
    };
  } catch {
    return null;
  }
}

const createKeccakHash = require('keccak') as (algorithm: 'keccak256') => KeccakHash;
const native = nativeKeccak();

/** Keccak-256 of `data`. */
export function keccak256Bytes(data: Uint8Array): Uint8Array {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return native ? native(bytes) : createKeccakHash('keccak256').update(bytes).digest();
}

let registered = false;

/** Makes every Keccak-256 ethers computes (hashes, addresses, checksums) use keccak256Bytes. Idempotent. */
export function useFastKeccak(): void {
  if (registered) return;
  keccak256.register(keccak256Bytes);
  registered = true;
}
