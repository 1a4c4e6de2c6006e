import { getBytes, hashMessage, keccak256, Wallet } from 'ethers';
import { HttpJsonClient } from './http-json.js';
import { personalSign, recoverSigner } from './secp256k1.js';
import { keccak256Bytes } from './keccak.js';

/** One `eth_sendBundle` (Flashbots' shape): signed transactions in order, for exactly one block. */
export interface RelayBundle {
  txs: string[];
  blockNumber: bigint;
  /** Hashes of the transactions that may revert without the bundle being dropped. */
  revertingTxHashes?: string[];
}

/**
 * `X-Flashbots-Signature` of a request body: `<address>:<personal_sign(keccak256(body))>`, the
 * form relays and MEV-Share nodes check (and `@flashbots/mev-share-client` sends).
 */
export function flashbotsSignature(body: string, identity: { address: string; key: Uint8Array }): string {
  return `${identity.address}:${personalSign(identity.key, keccak256(Buffer.from(body, 'utf8')))}`;
}

/**
 * The address (lowercase) that signed `body` with an `X-Flashbots-Signature` header value, or
 * null when the header is malformed or the signature is not that address's.
 */
export function verifyFlashbotsSignature(header: string | undefined, body: Uint8Array): string | null {
  const match = /^(0x[0-9a-fA-F]{40}):(0x[0-9a-fA-F]{130})$/.exec(header?.trim() ?? '');
  if (!match) return null;
  const signature = getBytes(match[2]!);
  const v = signature[64]!;
  const yParity = v >= 27 ? v - 27 : v;
  if (yParity !== 0 && yParity !== 1) return null;
  const digest = `0x${Buffer.from(keccak256Bytes(body)).toString('hex')}`;
  const signer = recoverSigner(getBytes(hashMessage(digest)), signature.subarray(0, 64), yParity);
  return signer !== null && signer === match[1]!.toLowerCase() ? signer : null;
}

/**
 * The configured relays of a chain: `eth_sendBundle` batches to every one at once, each request
 * signed by the relay identity key (`X-Flashbots-Signature`). A bundle counts as accepted when at
 * least one relay accepted it; otherwise the answer carries what the relays said.
 */
export class BundleRelays {
  private readonly identity: { address: string; key: Uint8Array };
  /** One kept-alive client per relay. */
  private readonly relays: HttpJsonClient[];

  constructor(urls: string[], identityKey: string | null, timeoutMs = 2_000) {
    const wallet = identityKey ? new Wallet(identityKey) : (Wallet.createRandom() as unknown as Wallet);
    this.identity = { address: wallet.address, key: getBytes(wallet.privateKey) };
    this.relays = urls.map((url) => new HttpJsonClient(url, timeoutMs));
  }

  get size(): number {
    return this.relays.length;
  }

  /** The address relays know this sender by (its reputation). */
  get address(): string {
    return this.identity.address;
  }

  /** Sends `bundles` as one JSON-RPC batch to every relay; per bundle, null when a relay accepted it, else why none did. */
  async send(bundles: RelayBundle[]): Promise<(string | null)[]> {
    const outcome: (string | null)[] = bundles.map(() => (this.relays.length === 0 ? 'no relay is configured' : 'no relay accepted the bundle'));
    if (bundles.length === 0 || this.relays.length === 0) return outcome;
    const body = JSON.stringify(
      bundles.map((b, id) => ({
        jsonrpc: '2.0',
        id,
        method: 'eth_sendBundle',
        params: [{ txs: b.txs, blockNumber: `0x${b.blockNumber.toString(16)}`, revertingTxHashes: b.revertingTxHashes ?? [] }],
      })),
    );
    const signature = flashbotsSignature(body, this.identity);
    await Promise.all(
      this.relays.map(async (relay) => {
        try {
          const replies = (await relay.postText(body, { 'x-flashbots-signature': signature })) as { id: number; error?: { message: string } }[];
          if (!Array.isArray(replies)) return;
          for (const reply of replies) {
            if (typeof reply?.id !== 'number' || reply.id < 0 || reply.id >= bundles.length) continue;
            if (!reply.error) outcome[reply.id] = null;
            else if (outcome[reply.id] !== null) outcome[reply.id] = reply.error.message ?? 'refused';
          }
        } catch {
          // One relay down: the others may have taken it; the caller retries for the next block.
        }
      }),
    );
    return outcome;
  }
}
