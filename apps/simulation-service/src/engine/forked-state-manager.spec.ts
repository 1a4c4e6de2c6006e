import { Account, createAddressFromString, hexToBytes } from '@ethereumjs/util';
import type { AccountState } from '../chain/chain-state.js';
import { ForkedStateManager, type StateReads } from './forked-state-manager.js';

const A = createAddressFromString('0x00000000000000000000000000000000000000aa');
const B = createAddressFromString('0x00000000000000000000000000000000000000bb');
const SLOT_HEX = `0x${'0'.repeat(63)}1`;
const SLOT = hexToBytes(SLOT_HEX as `0x${string}`);

/** The chain under the state: one account with balance 9 and code 0x00, slot 1 = 0x07. */
const chain: StateReads = {
  account: (address): AccountState =>
    address === A.toString()
      ? { exists: true, balance: 9n, nonce: 1n, code: new Uint8Array([0]), codeHash: new Uint8Array(32) }
      : { exists: false, balance: 0n, nonce: 0n, code: new Uint8Array(0), codeHash: new Uint8Array(32) },
  storage: (address) => (address === A.toString() ? new Uint8Array([7]) : new Uint8Array(0)),
};

describe('ForkedStateManager', () => {
  it('reads through to the chain until written', async () => {
    const s = new ForkedStateManager(chain);
    expect((await s.getAccount(A))!.balance).toBe(9n);
    expect(await s.getStorage(A, SLOT)).toEqual(new Uint8Array([7]));
    await s.putStorage(A, SLOT, new Uint8Array([8]));
    expect(await s.getStorage(A, SLOT)).toEqual(new Uint8Array([8]));
  });

  it('drops a reverted checkpoint and keeps a committed one', async () => {
    const s = new ForkedStateManager(chain);
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
    const s = new ForkedStateManager(chain);
    const account = (await s.getAccount(A))!;
    account.balance = 0n;
    expect((await s.getAccount(A))!.balance).toBe(9n);
  });

  it('cleared storage reads zero, and a write after the clear wins, across commits', async () => {
    const s = new ForkedStateManager(chain);
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
    const s = new ForkedStateManager(chain);
    await s.deleteAccount(A);
    expect(await s.getAccount(A)).toBeUndefined();
    expect(await s.getCode(A)).toEqual(new Uint8Array(0));
    expect(await s.getStorage(A, SLOT)).toEqual(new Uint8Array(0));
  });

  it('keeps each simulation’s writes to itself', async () => {
    const one = new ForkedStateManager(chain);
    const two = new ForkedStateManager(chain);
    await one.putStorage(A, SLOT, new Uint8Array([1]));
    expect(await two.getStorage(A, SLOT)).toEqual(new Uint8Array([7]));
  });

  it('keeps a layer per call that checkpoints commit into, and truncates back to the state before a call', async () => {
    const s = new ForkedStateManager(chain);
    const before = s.depth;
    s.pushLayer();
    await s.checkpoint();
    await s.putStorage(A, SLOT, new Uint8Array([1]));
    await s.commit();
    expect(s.depth).toBe(before + 1);
    expect(await s.getStorage(A, SLOT)).toEqual(new Uint8Array([1]));
    s.truncate(before);
    expect(await s.getStorage(A, SLOT)).toEqual(new Uint8Array([7]));
  });

  it('reports what the top layer changed, value against value', async () => {
    const s = new ForkedStateManager(chain);
    s.pushLayer();
    await s.putAccount(A, new Account(2n, 9n)); // nonce moved, balance the same
    await s.putStorage(A, SLOT, new Uint8Array([7])); // written, but to the value it had
    await s.putAccount(B, new Account(0n, 0n)); // an empty account that was absent: no change
    await s.putStorage(B, SLOT, new Uint8Array([3]));
    const changes = s.changesOfTop(() => []);
    const a = changes.find((c) => c.address === A.toString())!;
    expect(a.before.nonce).toBe(1n);
    expect(a.after.nonce).toBe(2n);
    expect(a.after.balance).toBe(a.before.balance);
    expect(a.storage.size).toBe(0);
    const b = changes.find((c) => c.address === B.toString())!;
    expect([...b.storage]).toEqual([[SLOT_HEX, [new Uint8Array(0), new Uint8Array([3])]]]);
  });

  it('reports every known slot of a cleared account as zeroed', async () => {
    const s = new ForkedStateManager(chain);
    s.pushLayer();
    await s.deleteAccount(A);
    const [a] = s.changesOfTop((account) => (account === A.toString() ? [SLOT_HEX] : []));
    expect(a!.after).toEqual({ nonce: 0n, balance: 0n, code: new Uint8Array(0) });
    expect(a!.before.code).toEqual(new Uint8Array([0]));
    expect([...a!.storage]).toEqual([[SLOT_HEX, [new Uint8Array([7]), new Uint8Array(0)]]]);
  });

  it('reads nothing of the chain for a contract the top layer created where there was none', async () => {
    const read: string[] = [];
    const s = new ForkedStateManager({ ...chain, storage: (address, slot) => (read.push(`${address}:${slot}`), chain.storage(address, slot)) });
    s.pushLayer();
    // What a creation does: storage cleared, code put, then the constructor writes and reads.
    await s.checkpoint();
    await s.clearStorage(B);
    await s.putCode(B, new Uint8Array([1]));
    await s.putStorage(B, SLOT, new Uint8Array([3]));
    await s.commit();
    const [b] = s.changesOfTop((account) => (account === B.toString() ? [SLOT_HEX, `0x${'0'.repeat(63)}2`] : []));
    expect([...b!.storage]).toEqual([[SLOT_HEX, [new Uint8Array(0), new Uint8Array([3])]]]);
    expect(read).toEqual([]);
    // An existing contract's cleared storage is still read to say what changed.
    s.pushLayer();
    await s.deleteAccount(A);
    s.changesOfTop((account) => (account === A.toString() ? [SLOT_HEX] : []));
    expect(read).toEqual([`${A.toString()}:${SLOT_HEX}`]);
  });
});
