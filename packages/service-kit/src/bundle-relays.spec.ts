import { Wallet, id as keccakText } from 'ethers';
import { flashbotsSignature, verifyFlashbotsSignature } from './bundle-relays.js';
import { personalSign } from './secp256k1.js';

describe('X-Flashbots-Signature', () => {
  const searcher = Wallet.createRandom();
  const body = JSON.stringify({ params: [{ version: 'v0.1' }], method: 'mev_sendBundle', id: 69, jsonrpc: '2.0' });

  it('accepts what @flashbots/mev-share-client sends: address:signMessage(id(body))', async () => {
    const header = `${searcher.address}:${await searcher.signMessage(keccakText(body))}`;
    expect(verifyFlashbotsSignature(header, Buffer.from(body))).toBe(searcher.address.toLowerCase());
  });

  it('signs what it verifies, byte for byte as ethers does', async () => {
    const header = flashbotsSignature(body, { address: searcher.address, key: Buffer.from(searcher.privateKey.slice(2), 'hex') });
    expect(header).toBe(`${searcher.address}:${await searcher.signMessage(keccakText(body))}`);
    expect(personalSign(Buffer.from(searcher.privateKey.slice(2), 'hex'), 'x')).toBe(await searcher.signMessage('x'));
  });

  it('refuses another body, another claimed address, and malformed headers', async () => {
    const signature = await searcher.signMessage(keccakText(body));
    expect(verifyFlashbotsSignature(`${searcher.address}:${signature}`, Buffer.from(`${body} `))).toBeNull();
    expect(verifyFlashbotsSignature(`${Wallet.createRandom().address}:${signature}`, Buffer.from(body))).toBeNull();
    for (const header of [undefined, '', signature, `${searcher.address}:0x1234`, `${searcher.address}:${signature.slice(0, -2)}1f`]) {
      expect(verifyFlashbotsSignature(header, Buffer.from(body))).toBeNull();
    }
  });
});
