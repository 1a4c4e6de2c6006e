import type { UnsignedTransaction } from '@tradeinfra/contracts';
import { concat, decodeRlp, encodeRlp, getBytes, Transaction, Wallet } from 'ethers';
import { ethersTransaction, matchSigned, signedTransaction, signingHash, unsignedFields } from './eip1559.js';

const wallet = new Wallet('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');

const unsigned = (over: Partial<UnsignedTransaction> = {}): UnsignedTransaction => ({
  purpose: 'buy',
  type: 2,
  chainId: 31337,
  from: wallet.address,
  nonce: 7,
  to: null,
  value: '1000000000000000007',
  data: `0x${'ab'.repeat(3000)}`,
  gasLimit: '250000',
  maxFeePerGas: '3000000000',
  maxPriorityFeePerGas: '1000000000',
  accessList: [],
  summary: {} as UnsignedTransaction['summary'],
  ...over,
});

const bytes = (hex: string) => Buffer.from(hex.slice(2), 'hex');

describe('unsignedFields, matchSigned, signingHash and signedTransaction', () => {
  it.each<[string, Partial<UnsignedTransaction>]>([
    ['a contract creation with 3 KB of init code', {}],
    ['a call with short data', { to: '0x00000000000000000000000000000000000000c5', data: '0x6001600155' }],
    ['zero nonce, value, tip and data (the empty encodings)', { nonce: 0, value: '0', maxPriorityFeePerGas: '0', data: '0x' }],
    ['one-byte values below and above 0x80', { nonce: 127, value: '128', chainId: 1 }],
    ['large values', { value: (2n ** 255n + 3n).toString(), maxFeePerGas: (10n ** 30n).toString(), chainId: 56 }],
  ])('read %s exactly as ethers signs and hashes it', async (_name, over) => {
    const tx = unsigned(over);
    const fields = unsignedFields(tx);
    const reference = ethersTransaction(tx);
    // The signing payload ethers serialises: 0x02 || rlp([the nine fields]).
    expect(concat(['0x02', encodeRlp(itemsOf(fields))])).toBe(reference.unsignedSerialized);
    const raw = await wallet.signTransaction(reference);
    const parts = matchSigned(fields, bytes(raw));
    expect(parts).not.toBeNull();
    const parsed = Transaction.from(raw);
    expect(parts!.hash).toBe(parsed.hash);
    expect(Buffer.from(parts!.signingHash).toString('hex')).toBe(parsed.unsignedHash.slice(2));
    expect(parts!.yParity).toBe(parsed.signature!.yParity);
    expect(Buffer.from(parts!.signature).toString('hex')).toBe(parsed.signature!.r.slice(2) + parsed.signature!.s.slice(2));
    // And back: the signing hash and the signed bytes built from the fields are ethers' own.
    expect(Buffer.from(signingHash(fields)).toString('hex')).toBe(reference.unsignedHash.slice(2));
    expect(`0x${signedTransaction(fields, parts!.yParity, parts!.signature).toString('hex')}`).toBe(raw);
  });

  it('writes r and s without leading zero bytes, and yParity 0 as the empty string', () => {
    const tx = unsigned({ data: '0x6001600155' });
    const fields = unsignedFields(tx);
    const r = `0x00${'11'.repeat(31)}`;
    const s = `0x0000${'22'.repeat(30)}`;
    const signed = ethersTransaction(tx);
    signed.signature = { r, s, v: 27 };
    const signature = getBytes(concat([r, s]));
    expect(`0x${signedTransaction(fields, 0, signature).toString('hex')}`).toBe(signed.serialized);
    expect(matchSigned(fields, signedTransaction(fields, 0, signature))!.signature).toEqual(signature);
  });

  it('takes nothing but the same nine fields with a canonical signature after them', async () => {
    const tx = unsigned({ data: '0x6001600155' });
    const fields = unsignedFields(tx);
    const raw = bytes(await wallet.signTransaction(ethersTransaction(tx)));
    expect(matchSigned(fields, raw)).not.toBeNull();
    // Another field, the unsigned form, trailing bytes, another type, a cut-off signature.
    expect(matchSigned(unsignedFields({ ...tx, nonce: 8 }), raw)).toBeNull();
    expect(matchSigned(fields, bytes(ethersTransaction(tx).unsignedSerialized))).toBeNull();
    expect(matchSigned(fields, Buffer.concat([raw, Buffer.from([0])]))).toBeNull();
    expect(matchSigned(fields, Buffer.concat([Buffer.from([0x01]), raw.subarray(1)]))).toBeNull();
    expect(matchSigned(fields, raw.subarray(0, raw.length - 1))).toBeNull();
    // r written with a leading zero byte (not canonical): the same list, re-encoded by hand.
    const parsed = Transaction.from(`0x${raw.toString('hex')}`);
    const items = [...itemsOf(fields), parsed.signature!.yParity === 0 ? '0x' : '0x01', concat(['0x00', parsed.signature!.r]), parsed.signature!.s];
    expect(matchSigned(fields, bytes(concat(['0x02', encodeRlp(items)])))).toBeNull();
  });
});

/** The nine encoded fields as ethers' RLP items (the concatenation read back as a list). */
function itemsOf(fields: Buffer): (string | string[])[] {
  const size = fields.length.toString(16).padStart(fields.length > 255 ? 4 : 2, '0');
  const head = fields.length <= 55 ? Buffer.from([0xc0 + fields.length]) : Buffer.from(`${(0xf7 + size.length / 2).toString(16)}${size}`, 'hex');
  return decodeRlp(Buffer.concat([head, fields])) as (string | string[])[];
}
