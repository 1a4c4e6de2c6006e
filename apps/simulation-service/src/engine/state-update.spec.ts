import { randomBytes } from 'node:crypto';
import { bytesToHex, toChecksumAddress } from '@ethereumjs/util';
import type { AccountChange } from './forked-state-manager.js';
import { checksum, hexOf, stateUpdate } from './state-update.js';

const A = '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed';
const B = '0x00000000000000000000000000000000000000a1';
const EMPTY = new Uint8Array(0);

const change = (address: string, over: Partial<AccountChange> = {}): AccountChange => ({
  address,
  before: { nonce: 0n, balance: 0n, code: EMPTY },
  after: { nonce: 0n, balance: 0n, code: EMPTY },
  storage: new Map(),
  ...over,
});

describe('hexOf and checksum', () => {
  it('writes quantities as minimal 0x hex and addresses in their EIP-55 form', () => {
    expect(hexOf(0n)).toBe('0x0');
    expect(hexOf(255n)).toBe('0xff');
    expect(checksum(A)).toBe('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed');
    expect(checksum(A)).toBe('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed');
  });

  it("gives EIP-55's examples, and what ethereumjs gives for any address", () => {
    for (const address of [
      '0x52908400098527886E0F7030069857D2E4169EE7',
      '0x8617E340B3D01FA5F11F306F4090FD50E238070D',
      '0xde709f2102306220921060314715629080e2fb77',
      '0x27b1fdb04752bbc536007a920d24acb045561c26',
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
      '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
      '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
    ]) {
      expect(checksum(address.toLowerCase())).toBe(address);
    }
    for (let i = 0; i < 200; i++) {
      const address = bytesToHex(randomBytes(20));
      expect(checksum(address)).toBe(toChecksumAddress(address));
    }
  });
});

describe('stateUpdate', () => {
  it('is empty when nothing changed', () => {
    expect(stateUpdate([])).toEqual({});
    expect(stateUpdate([change(B)])).toEqual({});
  });

  it('gives only the fields that changed, by checksummed address in address order, slots as sorted 32-byte words', () => {
    const slot = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
    const update = stateUpdate([
      change(A, {
        before: { nonce: 1n, balance: 10n, code: EMPTY },
        after: { nonce: 1n, balance: 7n, code: new Uint8Array([0x60, 0x00]) },
        storage: new Map([
          [slot(2), [EMPTY, new Uint8Array([1, 0])]],
          [slot(1), [new Uint8Array([5]), EMPTY]],
        ]),
      }),
      change(B, { before: { nonce: 3n, balance: 0n, code: EMPTY }, after: { nonce: 4n, balance: 0n, code: EMPTY } }),
    ]);
    const a = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
    const b = '0x00000000000000000000000000000000000000A1';
    expect(update).toEqual({
      accounts: { [b]: { nonce: 4 }, [a]: { balance: '0x7' } },
      contractCodes: { [a]: '0x6000' },
      storage: { [a]: { [slot(1)]: `0x${'0'.repeat(64)}`, [slot(2)]: `0x${'0'.repeat(60)}0100` } },
    });
    expect(Object.keys(update.accounts!)).toEqual([b, a]);
    expect(Object.keys(update.storage![a]!)).toEqual([slot(1), slot(2)]);
  });
});
