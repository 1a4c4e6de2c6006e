import { mempoolNonces, senderOf, senderState } from './round-reads.js';

describe('senderState', () => {
  it('starts each sender past its buys still out, or at the node’s pending nonce when that is ahead', () => {
    const s = senderState(
      ['0xA', '0xB'],
      ['0x5', '0x64', '0x2', '0xc8'],
      new Map([
        ['0xa', 9n],
        ['0xb', 0n],
      ]),
      [],
      [],
    );
    expect(s.nonce).toEqual(
      new Map([
        ['0xA', 10n],
        ['0xB', 2n],
      ]),
    );
    expect(s.balance).toEqual(
      new Map([
        ['0xA', 100n],
        ['0xB', 200n],
      ]),
    );
  });

  it('reads wallet intents’ wrapped balance, allowance and spent nonce', () => {
    const s = senderState(
      [],
      [],
      new Map(),
      [
        { id: 'w1', wallet: '0xAA' },
        { id: 'w2', wallet: '0xBB' },
      ],
      ['0x10', '0x20', '0x0', '0x1', '0x2', '0x1'],
    );
    expect(s.wrapped).toEqual(
      new Map([
        ['0xaa', { balance: 16n, allowance: 32n }],
        ['0xbb', { balance: 1n, allowance: 2n }],
      ]),
    );
    expect([...s.nonceSpent]).toEqual(['w2']);
  });
});

describe('senderOf', () => {
  it('sends a wallet intent from the relayer where the chain has one, a bot intent from its wallet', () => {
    const wallets = { executor: '0xE', relayer: null as never, relayerAddress: '0xR' };
    expect(senderOf({ wallets }, { signature: '0xsig', wallet: '0xW' })).toBe('0xR');
    expect(senderOf({ wallets }, { signature: null, wallet: '0xW' })).toBe('0xW');
    expect(senderOf({ wallets: null }, { signature: '0xsig', wallet: '0xW' })).toBe('0xW');
  });
});

describe('mempoolNonces', () => {
  it('gives each sender the nonce after its last transaction in the pending block', () => {
    const block = {
      transactions: [
        { from: '0xAA', nonce: '0x4' },
        { from: '0xbb', nonce: '0x0' },
        { from: '0xaa', nonce: '0x6' },
        { from: '0xAa', nonce: '0x5' },
      ],
    };
    expect(mempoolNonces(block)).toEqual(
      new Map([
        ['0xaa', 7n],
        ['0xbb', 1n],
      ]),
    );
  });

  it('reads nothing from a missing block or one listing hashes only', () => {
    expect(mempoolNonces(null).size).toBe(0);
    expect(mempoolNonces({ transactions: ['0x12'] }).size).toBe(0);
  });
});
