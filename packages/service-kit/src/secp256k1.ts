import { createRequire } from 'node:module';
import { getBytes, hashMessage, keccak256 } from 'ethers';

interface Secp256k1 {
  ecdsaRecover(signature: Uint8Array, recid: number, message: Uint8Array, compressed: boolean): Uint8Array;
  ecdsaSign(message: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recid: number };
}

/**
 * libsecp256k1 through the `secp256k1` package: its prebuilt native binding where there is one
 * (linux-x64: ~0.1 ms per recovery here, against ~3.4 ms for the pure-JS curve in ethers), else
 * its JavaScript fallback. Checking a launch's signed buys, and signing each relay request, are
 * on the path to submission.
 */
const secp256k1 = createRequire(import.meta.url)('secp256k1') as Secp256k1;

/** The address that signed `digest` (32 bytes) with (r, s, yParity), or null if none did. */
export function recoverAddress(digest: string, r: string, s: string, yParity: number): string | null {
  const signature = new Uint8Array(64);
  signature.set(getBytes(r), 0);
  signature.set(getBytes(s), 32);
  return recoverSigner(getBytes(digest), signature, yParity);
}

/** The address (lowercase) that signed `digest` with `signature` (r ‖ s, 64 bytes) and `yParity`, or null if none did. */
export function recoverSigner(digest: Uint8Array, signature: Uint8Array, yParity: number): string | null {
  try {
    const publicKey = secp256k1.ecdsaRecover(signature, yParity, digest, false);
    return `0x${keccak256(publicKey.subarray(1)).slice(-40)}`;
  } catch {
    return null;
  }
}

/** ECDSA of a 32-byte `digest` with `privateKey` (RFC 6979 nonce, low s, as ethers signs): r ‖ s and the recovery id. */
export function signDigest(digest: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recid: 0 | 1 } {
  const { signature, recid } = secp256k1.ecdsaSign(digest, privateKey);
  return { signature, recid: recid as 0 | 1 };
}

/**
 * EIP-191 `personal_sign` of the text `message` with `privateKey` (32 bytes): the same 65-byte
 * r ‖ s ‖ v (v 27 or 28) ethers' `signMessage` gives (both use RFC 6979 nonces and low s).
 */
export function personalSign(privateKey: Uint8Array, message: string): string {
  const { signature, recid } = secp256k1.ecdsaSign(getBytes(hashMessage(message)), privateKey);
  return `0x${Buffer.from(signature).toString('hex')}${(27 + recid).toString(16)}`;
}
