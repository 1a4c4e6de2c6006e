import { randomBytes } from 'node:crypto';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { id, keccak256, Transaction, Wallet } from 'ethers';
import { keccak256Bytes, useFastKeccak } from './keccak.js';

describe('keccak256Bytes', () => {
  it('agrees with the reference Keccak-256 on empty, short, block-sized and long inputs, and on views into larger buffers', () => {
    expect(Buffer.from(keccak256Bytes(new Uint8Array(0))).toString('hex')).toBe('c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
    for (const size of [1, 31, 32, 135, 136, 137, 272, 3000, 100_000]) {
      const data = randomBytes(size);
      expect(Buffer.from(keccak256Bytes(data))).toEqual(Buffer.from(keccak_256(data)));
      const view = new Uint8Array(data.buffer, data.byteOffset + 1, size - 1);
      expect(Buffer.from(keccak256Bytes(view))).toEqual(Buffer.from(keccak_256(view)));
    }
  });

  it('gives each hash its own bytes: the next hash (one sponge is reused) leaves an earlier one as it was', () => {
    const first = keccak256Bytes(Buffer.from('first'));
    const copy = Buffer.from(first).toString('hex');
    keccak256Bytes(randomBytes(500));
    expect(Buffer.from(first).toString('hex')).toBe(copy);
    expect(copy).toBe(Buffer.from(keccak_256(Buffer.from('first'))).toString('hex'));
  });

  it('once registered, ethers hashes, signs and recovers with it exactly as before', async () => {
    const wallet = Wallet.createRandom();
    const tx = {
      type: 2,
      chainId: 1n,
      nonce: 3,
      to: wallet.address,
      value: 5n,
      gasLimit: 21_000n,
      maxFeePerGas: 9n,
      maxPriorityFeePerGas: 1n,
      data: `0x${'ab'.repeat(3000)}`,
    };
    const before = { raw: await wallet.signTransaction(tx), id: id('launch'), hash: keccak256('0x1234') };
    useFastKeccak();
    useFastKeccak();
    const after = { raw: await wallet.signTransaction(tx), id: id('launch'), hash: keccak256('0x1234') };
    expect(after).toEqual(before);
    const parsed = Transaction.from(after.raw);
    expect(parsed.from).toBe(wallet.address);
    expect(parsed.hash).toBe(keccak256(after.raw));
  });
});
