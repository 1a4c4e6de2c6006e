import type { AccountFields, StateManagerInterface } from '@ethereumjs/common';
import { OriginalStorageCache } from '@ethereumjs/statemanager';
import { Account, bytesToHex, EthereumJSErrorWithoutCode, KECCAK256_NULL, type Address } from '@ethereumjs/util';
import { keccak256Bytes } from '@tradeinfra/service-kit/plain';
import type { AccountState } from '../chain/chain-state.js';

const DELETED = Symbol('deleted');
const EMPTY = new Uint8Array(0);

/**
 * What the state under a simulation reads: the chain at one block. Synchronous: an answer the
 * reader does not have yet is an assumption it records (see `BundleReads`), never a wait, so a
 * run is a function of the request, the block and what is known, with no I/O of its own.
 */
export interface StateReads {
  account(address: string): AccountState;
  /** `slot` as 0x + 64 hex digits; minimal bytes back (zero: empty). */
  storage(address: string, slot: string): Uint8Array;
}

/** One layer's writes. */
class Layer {
  readonly accounts = new Map<string, Account | typeof DELETED>();
  readonly code = new Map<string, Uint8Array>();
  /** `${address}:${slot hex}` → minimal-bytes value. */
  readonly storage = new Map<string, Uint8Array>();
  /** Accounts whose storage was wiped in this layer (before any write listed above). */
  readonly cleared = new Set<string>();
}

/** One account's change in a layer: before and after (undefined: no account). */
export interface AccountChange {
  address: string;
  before: { nonce: bigint; balance: bigint; code: Uint8Array };
  after: { nonce: bigint; balance: bigint; code: Uint8Array };
  /** Slot (0x + 64 hex) → [before, after], minimal bytes; only slots whose value changed. */
  storage: Map<string, [Uint8Array, Uint8Array]>;
}

const ABSENT: AccountState = { exists: false, balance: 0n, nonce: 0n, code: EMPTY, codeHash: KECCAK256_NULL };

/**
 * The state one simulation runs on: the chain at one block (through its {@link StateReads}),
 * under this simulation's own write layers. The layers are a stack: the bundle's overrides,
 * then per call its own overrides and its writes (so the state before any call is a prefix of
 * the stack, and a run can resume from there), and on top the EVM's checkpoints during a
 * transaction (checkpoint = new layer, commit = merge down, revert = drop).
 */
export class ForkedStateManager implements StateManagerInterface {
  private layers: Layer[] = [new Layer()];
  readonly originalStorageCache: OriginalStorageCache;

  constructor(private reads: StateReads) {
    this.originalStorageCache = new OriginalStorageCache(this.getStorage.bind(this));
  }

  /** Number of layers: pass it to {@link truncate} to come back to this state. */
  get depth(): number {
    return this.layers.length;
  }

  /** Starts a layer that EVM checkpoints commit into and never merge away. */
  pushLayer(): void {
    this.layers.push(new Layer());
  }

  /** Drops every layer above `depth` (the state as it was when `depth` was read). */
  truncate(depth: number): void {
    this.layers.length = depth;
    this.originalStorageCache.clear();
  }

  private get top(): Layer {
    return this.layers[this.layers.length - 1]!;
  }

  async getAccount(address: Address): Promise<Account | undefined> {
    return this.accountAt(address.toString(), this.layers.length);
  }

  /** The account as the layers below `limit` see it. */
  private accountAt(key: string, limit: number): Account | undefined {
    for (let i = limit - 1; i >= 0; i--) {
      const found = this.layers[i]!.accounts.get(key);
      if (found !== undefined) return found === DELETED ? undefined : copy(found);
    }
    const state = this.reads.account(key);
    if (!state.exists) return undefined;
    return new Account(state.nonce, state.balance, undefined, state.codeHash);
  }

  async putAccount(address: Address, account?: Account): Promise<void> {
    this.top.accounts.set(address.toString(), account ? copy(account) : DELETED);
  }

  async deleteAccount(address: Address): Promise<void> {
    const key = address.toString();
    this.top.accounts.set(key, DELETED);
    this.top.code.set(key, EMPTY);
    await this.clearStorage(address);
  }

  async modifyAccountFields(address: Address, fields: AccountFields): Promise<void> {
    const account = (await this.getAccount(address)) ?? new Account();
    account.nonce = fields.nonce ?? account.nonce;
    account.balance = fields.balance ?? account.balance;
    account.storageRoot = fields.storageRoot ?? account.storageRoot;
    account.codeHash = fields.codeHash ?? account.codeHash;
    await this.putAccount(address, account);
  }

  async getCode(address: Address): Promise<Uint8Array> {
    return this.codeAt(address.toString(), this.layers.length);
  }

  private codeAt(key: string, limit: number): Uint8Array {
    for (let i = limit - 1; i >= 0; i--) {
      const layer = this.layers[i]!;
      const code = layer.code.get(key);
      if (code !== undefined) return code;
      if (layer.accounts.get(key) === DELETED) return EMPTY;
    }
    return this.reads.account(key).code;
  }

  async putCode(address: Address, value: Uint8Array): Promise<void> {
    this.top.code.set(address.toString(), value);
    await this.modifyAccountFields(address, { codeHash: value.length === 0 ? KECCAK256_NULL : keccak256Bytes(value) });
  }

  async getCodeSize(address: Address): Promise<number> {
    return (await this.getCode(address)).length;
  }

  async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    if (key.length !== 32) throw EthereumJSErrorWithoutCode('Storage key must be 32 bytes long');
    return this.storageAt(address.toString(), bytesToHex(key), this.layers.length);
  }

  /** A slot as the layers below `limit` see it; past them the chain's value, or (`chain` false) empty. */
  private storageAt(account: string, slot: string, limit: number, chain = true): Uint8Array {
    const storageKey = `${account}:${slot}`;
    for (let i = limit - 1; i >= 0; i--) {
      const layer = this.layers[i]!;
      const value = layer.storage.get(storageKey);
      if (value !== undefined) return value;
      if (layer.cleared.has(account)) return EMPTY;
    }
    return chain ? this.reads.storage(account, slot) : EMPTY;
  }

  async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    this.top.storage.set(`${address.toString()}:${bytesToHex(key)}`, value);
  }

  async clearStorage(address: Address): Promise<void> {
    const account = address.toString();
    dropStorageOf(this.top, account);
    this.top.cleared.add(account);
  }

  async checkpoint(): Promise<void> {
    this.layers.push(new Layer());
  }

  async commit(): Promise<void> {
    const top = this.layers.pop()!;
    const below = this.top;
    for (const account of top.cleared) {
      dropStorageOf(below, account);
      below.cleared.add(account);
    }
    for (const [k, v] of top.accounts) below.accounts.set(k, v);
    for (const [k, v] of top.code) below.code.set(k, v);
    for (const [k, v] of top.storage) below.storage.set(k, v);
  }

  async revert(): Promise<void> {
    if (this.layers.length > 1) this.layers.pop();
  }

  /**
   * What the top layer changed against the state below it: every account whose nonce, balance,
   * code or storage differs. A cleared account's storage is compared slot by slot for every slot
   * this simulation knows of (written in a layer below, or read): `knownSlots` lists the read ones.
   */
  changesOfTop(knownSlots: (account: string) => Iterable<string>): AccountChange[] {
    const limit = this.layers.length - 1;
    const top = this.layers[limit]!;
    const addresses = new Set<string>([...top.accounts.keys(), ...top.code.keys(), ...top.cleared]);
    const slotsOf = new Map<string, Set<string>>();
    const slotSet = (a: string) => {
      let s = slotsOf.get(a);
      if (!s) slotsOf.set(a, (s = new Set()));
      return s;
    };
    for (const key of top.storage.keys()) {
      const at = key.indexOf(':');
      const account = key.slice(0, at);
      addresses.add(account);
      slotSet(account).add(key.slice(at + 1));
    }
    for (const account of top.cleared) {
      const slots = slotSet(account);
      const prefix = `${account}:`;
      for (let i = 0; i < limit; i++) for (const key of this.layers[i]!.storage.keys()) if (key.startsWith(prefix)) slots.add(key.slice(prefix.length));
      for (const slot of knownSlots(account)) slots.add(slot);
    }
    const out: AccountChange[] = [];
    for (const address of addresses) {
      const beforeAccount = this.accountAt(address, limit);
      const afterAccount = this.accountAt(address, limit + 1);
      const change: AccountChange = {
        address,
        before: { nonce: beforeAccount?.nonce ?? 0n, balance: beforeAccount?.balance ?? 0n, code: this.codeAt(address, limit) },
        after: { nonce: afterAccount?.nonce ?? 0n, balance: afterAccount?.balance ?? 0n, code: this.codeAt(address, limit + 1) },
        storage: new Map(),
      };
      // A contract this call created where there was none (no code, nonce 0): its storage before
      // was empty, or the creation would have failed (EIP-7610), as the run assumed when it made
      // it. Nothing of it is read from the chain, so a launch that creates its pool waits for
      // none of the pool's slots.
      const created = top.cleared.has(address) && change.before.nonce === 0n && change.before.code.length === 0;
      for (const slot of slotsOf.get(address) ?? []) {
        const before = this.storageAt(address, slot, limit, !created);
        const after = this.storageAt(address, slot, limit + 1);
        if (!sameBytes(before, after)) change.storage.set(slot, [before, after]);
      }
      out.push(change);
    }
    return out;
  }

  async flush(): Promise<void> {}

  clearCaches(): void {}

  shallowCopy(): StateManagerInterface {
    const copyOf = new ForkedStateManager(this.reads);
    copyOf.layers = this.layers.map((layer) => {
      const l = new Layer();
      for (const [k, v] of layer.accounts) l.accounts.set(k, v);
      for (const [k, v] of layer.code) l.code.set(k, v);
      for (const [k, v] of layer.storage) l.storage.set(k, v);
      for (const a of layer.cleared) l.cleared.add(a);
      return l;
    });
    return copyOf;
  }

  // A forked state has no state root of its own.
  async getStateRoot(): Promise<Uint8Array> {
    return new Uint8Array(32);
  }
  async setStateRoot(): Promise<void> {
    throw EthereumJSErrorWithoutCode('setStateRoot is not supported on a forked state');
  }
  async hasStateRoot(): Promise<boolean> {
    return false;
  }
}

export { ABSENT as ABSENT_ACCOUNT };

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function copy(account: Account): Account {
  return new Account(account.nonce, account.balance, account.storageRoot, account.codeHash);
}

function dropStorageOf(layer: Layer, account: string): void {
  const prefix = `${account}:`;
  for (const key of layer.storage.keys()) if (key.startsWith(prefix)) layer.storage.delete(key);
}
