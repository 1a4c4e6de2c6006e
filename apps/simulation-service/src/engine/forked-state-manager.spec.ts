import { Account, createAddressFromString, hexToBytes } from '@ethereumjs/util';
import type { AccountState, ChainState } from '../chain/chain-state.js';
import { ForkedStateManager } from './forked-state-manager.js';

const A = createAddressFromString('0x00000000000000000000000000000000000000aa');
const SLOT = hexToBytes(`0x${'0'.repeat(63)}1`);

/** Chain state stub: one account with balance 9 and code 0x00, slot 1 = 0x07. */
const chain = {
  account: async (): Promise<AccountState> => ({ exists: true, balance: 9n, nonce: 1n, code: new Uint8Array([0]), codeHash: new Uint8Array(32) }),
  storage: async () => new Uint8Array([7]),
} as unknown as ChainState;

describe('ForkedStateManager', () => {
  it('reads through to the chain until written', async () => {
    const s = new ForkedStateManager(chain, 1n);
    expect((await s.getAccount(A))!.balance).toBe(9n);
    expect(await s.getStorage(A, SLOT)).toEqual(new Uint8Array([7]));
    await s.putStorage(A, SLOT, new Uint8Array([8]));
    expect(await s.getStorage(A, SLOT)).toEqual(new Uint8Array([8]));
  });

  it('drops a reverted checkpoint and keeps a committed one', async () => {
    const s = new ForkedStateManager(chain, 1n);
    await s.checkpoint();
    await s.putAccount(A, new Account(1n, 100n));
    await s.revert();
    expect((await s.getAccount(A))!.balance).toBe(9n);
    await s.checkpoint();
    await s.checkpoint();
    await s.putAccount(A, new Account(1n, 100n));
    await s.commit();
    await s.commit();
    expect((await s.getAccount(A))!.balance).toBe(100n);
  });

  it('does not let a caller mutate stored accounts', async () => {
    const s = new ForkedStateManager(chain, 1n);
    const account = (await s.getAccount(A))!;
    account.balance = 0n;
    expect((await s.getAccount(A))!.balance).toBe(9n);
  });

  it('cleared storage reads zero, and a write after the clear wins, across commits', async () => {
    const s = new ForkedStateManager(chain, 1n);
    await s.checkpoint();
    await s.clearStorage(A);
    expect(await s.getStorage(A, SLOT)).toEqual(new Uint8Array(0));
    await s.checkpoint();
    await s.putStorage(A, SLOT, new Uint8Array([5]));
    await s.commit();
    await s.commit();
    expect(await s.getStorage(A, SLOT)).toEqual(new Uint8Array([5]));
  });

  it('a deleted account has no code, balance or storage', async () => {
    const s = new ForkedStateManager(chain, 1n);
    await s.deleteAccount(A);
    expect(await s.getAccount(A)).toBeUndefined();
    expect(await s.getCode(A)).toEqual(new Uint8Array(0));
    expect(await s.getStorage(A, SLOT)).toEqual(new Uint8Array(0));
  });

  it('keeps each simulation’s writes to itself', async () => {
    const one = new ForkedStateManager(chain, 1n);
    const two = new ForkedStateManager(chain, 1n);
    await one.putStorage(A, SLOT, new Uint8Array([1]));
    expect(await two.getStorage(A, SLOT)).toEqual(new Uint8Array([7]));
  });
});
