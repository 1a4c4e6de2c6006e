import type { AccountFields, StateManagerInterface } from '@ethereumjs/common';
import { OriginalStorageCache } from '@ethereumjs/statemanager';
import { Account, bytesToHex, EthereumJSErrorWithoutCode, KECCAK256_NULL, type Address } from '@ethereumjs/util';
import { keccak_256 } from '@noble/hashes/sha3.js';
import type { AccountState, ChainState } from '../chain/chain-state.js';

const DELETED = Symbol('deleted');
const EMPTY = new Uint8Array(0);

/** One checkpoint's writes. */
class Layer {
  readonly accounts = new Map<string, Account | typeof DELETED>();
  readonly code = new Map<string, Uint8Array>();
  /** `${address}:${slot hex}` → minimal-bytes value. */
  readonly storage = new Map<string, Uint8Array>();
  /** Accounts whose storage was wiped in this layer (before any write listed above). */
  readonly cleared = new Set<string>();
}

const ABSENT: AccountState = { exists: false, balance: 0n, nonce: 0n, code: EMPTY, codeHash: KECCAK256_NULL };

/**
 * The state one simulation runs on: the chain at one block, read lazily through the shared
 * {@link ChainState} cache, under this simulation's own write layers (checkpoint = new layer,
 * commit = merge down, revert = drop). No simulation ever sees another's writes.
 *
 * Optimistic mode (`misses` given): a read the cache cannot answer does not wait for the
 * upstream; it is recorded in `misses` and answered as empty, and the run is thrown away and
 * repeated once the misses are fetched. A run with no misses is exact.
 */
export class ForkedStateManager implements StateManagerInterface {
  private layers: Layer[] = [new Layer()];
  readonly originalStorageCache: OriginalStorageCache;

  constructor(
    private readonly chain: ChainState,
    private readonly blockNumber: bigint,
    private readonly misses: Set<string> | null = null,
    /** Every chain key this simulation read (`a:<address>`, `s:<address>:<slot>`). */
    readonly touched: Set<string> = new Set(),
  ) {
    this.originalStorageCache = new OriginalStorageCache(this.getStorage.bind(this));
  }

  private get top(): Layer {
    return this.layers[this.layers.length - 1]!;
  }

  async getAccount(address: Address): Promise<Account | undefined> {
    const key = address.toString();
    for (let i = this.layers.length - 1; i >= 0; i--) {
      const found = this.layers[i]!.accounts.get(key);
      if (found !== undefined) return found === DELETED ? undefined : copy(found);
    }
    const state = await this.baseAccount(key);
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
    const key = address.toString();
    for (let i = this.layers.length - 1; i >= 0; i--) {
      const layer = this.layers[i]!;
      const code = layer.code.get(key);
      if (code !== undefined) return code;
      if (layer.accounts.get(key) === DELETED) return EMPTY;
    }
    return (await this.baseAccount(key)).code;
  }

  private async baseAccount(address: string): Promise<AccountState> {
    this.touched.add(`a:${address}`);
    if (!this.misses) return this.chain.account(this.blockNumber, address);
    const cached = this.chain.cachedAccount(this.blockNumber, address);
    if (cached) return cached;
    this.misses.add(`a:${address}`);
    return ABSENT;
  }

  async putCode(address: Address, value: Uint8Array): Promise<void> {
    this.top.code.set(address.toString(), value);
    await this.modifyAccountFields(address, { codeHash: value.length === 0 ? KECCAK256_NULL : keccak_256(value) });
  }

  async getCodeSize(address: Address): Promise<number> {
    return (await this.getCode(address)).length;
  }

  async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    if (key.length !== 32) throw EthereumJSErrorWithoutCode('Storage key must be 32 bytes long');
    const account = address.toString();
    const slot = bytesToHex(key);
    const storageKey = `${account}:${slot}`;
    for (let i = this.layers.length - 1; i >= 0; i--) {
      const layer = this.layers[i]!;
      const value = layer.storage.get(storageKey);
      if (value !== undefined) return value;
      if (layer.cleared.has(account)) return EMPTY;
    }
    this.touched.add(`s:${account}:${slot}`);
    if (!this.misses) return this.chain.storage(this.blockNumber, account, slot);
    const cached = this.chain.cachedStorage(this.blockNumber, account, slot);
    if (cached) return cached;
    this.misses.add(`s:${account}:${slot}`);
    return EMPTY;
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

  async flush(): Promise<void> {}

  clearCaches(): void {}

  shallowCopy(): StateManagerInterface {
    const copyOf = new ForkedStateManager(this.chain, this.blockNumber, this.misses, this.touched);
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

function copy(account: Account): Account {
  return new Account(account.nonce, account.balance, account.storageRoot, account.codeHash);
}

function dropStorageOf(layer: Layer, account: string): void {
  const prefix = `${account}:`;
  for (const key of layer.storage.keys()) if (key.startsWith(prefix)) layer.storage.delete(key);
}
