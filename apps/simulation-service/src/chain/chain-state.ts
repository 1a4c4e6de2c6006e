import { createHash } from 'node:crypto';
import { bytesToHex, hexToBytes, KECCAK256_NULL } from '@ethereumjs/util';
import { LRUCache } from 'lru-cache';
import { ChainRpc, keccak256Bytes, RpcError, RpcUnavailable, type ChainRpcOptions } from '@tradeinfra/service-kit/plain';
import type { ChainConfig } from '../config/env.js';
import { ChainError, ChainErrorCode } from './chain.errors.js';

/** The block environment and identity of one upstream block. */
export interface BlockEnv {
  number: bigint;
  hash: string;
  timestamp: bigint;
  gasLimit: bigint;
  baseFeePerGas: bigint | null;
  coinbase: string;
  mixHash: string;
  difficulty: bigint;
  excessBlobGas: bigint | null;
  parentBeaconBlockRoot: string | null;
}

/** An account as of a block. `exists` false: no balance, nonce or code (EIP-161 empty). */
export interface AccountState {
  exists: boolean;
  balance: bigint;
  nonce: bigint;
  code: Uint8Array;
  codeHash: Uint8Array;
}

type AccessList = { address: string; storageKeys: string[] }[];
type CacheValue = BlockEnv | AccountState | Uint8Array | { accessList: AccessList };

/**
 * What a simulation reads its chain through: {@link ChainState} on the service's main thread, a
 * worker's `RemoteChain` (which asks the main thread's ChainState) in the simulation workers.
 */
export interface ChainSource {
  readonly config: ChainConfig;
  readonly hasAccessLists: boolean;
  block(number: bigint | null, budget?: ReadBudget): Promise<BlockEnv>;
  accessListKeys(block: bigint, calls: { from: string; to: string | null; data: string; value?: bigint }[], budget?: ReadBudget): Promise<string[]>;
  cachedAccount(block: bigint, address: string): AccountState | undefined;
  cachedStorage(block: bigint, address: string, slot: string): Uint8Array | undefined;
  cachedBlockHash(number: bigint): Uint8Array | undefined;
  lastKnownAccount(address: string): AccountState | undefined;
  lastKnownStorage(address: string, slot: string): Uint8Array | undefined;
  fetchMisses(block: bigint, misses: Iterable<string>, budget?: ReadBudget): Promise<Map<string, AccountState | Uint8Array>>;
}

/**
 * A simulation's budget of upstream JSON-RPC calls (SIM_MAX_UPSTREAM_READS): spent before a
 * batch is sent (a key already cached or in flight may be counted, never one sent uncounted);
 * past it the read fails (ChainError ReadBudgetSpent: the simulation's 422
 * `upstream_budget_exceeded`), and the batch is not sent.
 */
export class ReadBudget {
  used = 0;
  constructor(readonly max: number) {}

  spend(calls: number): void {
    if (calls <= 0) return;
    if (this.used + calls > this.max) {
      throw new ChainError(
        ChainErrorCode.ReadBudgetSpent,
        `The simulation needs more than ${this.max} reads of chain state from the node (SIM_MAX_UPSTREAM_READS): ${this.used} made, ${calls} more wanted`,
        { limit: this.max, used: this.used, wanted: calls },
      );
    }
    this.used += calls;
  }
}

/** Shared by every chain and simulation of this process, capped in bytes. */
export function createStateCache(maxBytes: number): LRUCache<string, CacheValue> {
  return new LRUCache<string, CacheValue>({
    maxSize: maxBytes,
    sizeCalculation: (value, key) => key.length + sizeOf(value),
  });
}

function sizeOf(value: CacheValue): number {
  if (value instanceof Uint8Array) return 32 + value.length;
  if ('code' in value) return 160 + value.code.length;
  if ('accessList' in value) return 64 + value.accessList.reduce((n, e) => n + 48 + 66 * e.storageKeys.length, 0);
  return 400;
}

interface RpcBlock {
  number: string;
  hash: string;
  timestamp: string;
  gasLimit: string;
  baseFeePerGas?: string | null;
  miner: string;
  mixHash?: string;
  prevRandao?: string;
  difficulty?: string;
  excessBlobGas?: string | null;
  parentBeaconBlockRoot?: string | null;
}

const hex = (n: bigint) => `0x${n.toString(16)}`;

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Minimal big-endian bytes (zero → empty), the form the EVM compares storage values in. */
export function stripWord(word: string): Uint8Array {
  const digits = word.slice(2).replace(/^0+/, '');
  return digits.length === 0 ? new Uint8Array(0) : hexToBytes(`0x${digits.length % 2 ? '0' : ''}${digits}`);
}

/**
 * Chain state at any block, read from the chain's JSON-RPC on demand: cached (LRU, shared),
 * with concurrent misses for one key sharing one request, and requests of one tick batched.
 * Block-level data is immutable per block number, so it is cached by (chain, block). With several
 * endpoints, a read at block N goes to one that has N (ChainRpc.atLeast); a block one endpoint
 * does not have yet while another showed it is asked of all, not called unknown.
 */
export class ChainState implements ChainSource {
  readonly rpc: ChainRpc;
  private readonly inflight = new Map<string, Promise<CacheValue>>();
  /** Set once the upstream says it has no eth_createAccessList. */
  private accessListUnsupported = false;
  /**
   * The newest value fetched for each account and slot, whatever its block: what a run assumes
   * for a key it has not fetched at its own block yet (state rarely changes between blocks, so
   * the run takes the path the exact one will, and one batch fetches every key it needs).
   */
  private readonly lastKnown = new LRUCache<string, AccountState | Uint8Array>({ max: 200_000 });

  constructor(
    readonly config: ChainConfig,
    private readonly cache: LRUCache<string, CacheValue>,
    private readonly timeoutMs: number,
    maxBatch: number,
    /** How the chain's several endpoints are chosen between (lag allowed, checks, where they are told). */
    endpoints: Omit<ChainRpcOptions, 'timeoutMs' | 'maxBatch' | 'autoBatch'> = {},
  ) {
    this.rpc = new ChainRpc(config.rpcUrls, { ...endpoints, name: `chain ${config.chainId}`, timeoutMs, maxBatch, autoBatch: true });
  }

  /** The block to simulate on: `null` is the upstream head now. */
  async block(number: bigint | null, budget?: ReadBudget): Promise<BlockEnv> {
    if (number === null) {
      budget?.spend(1);
      const head = await this.fetchBlock('latest');
      if (!head) throw new ChainError(ChainErrorCode.BadAnswer, `The chain RPC (chain ${this.config.chainId}) returned no latest block`);
      this.cache.set(this.key('h', head.number.toString()), head);
      return head;
    }
    const key = this.key('h', number.toString());
    if (!this.cache.has(key)) budget?.spend(1);
    const block = await this.cached(key, async () => {
      const found = await this.fetchBlock(hex(number));
      if (!found) throw new ChainError(ChainErrorCode.UnknownBlock, `block ${number} does not exist on chain ${this.config.chainId} (in the future?)`);
      return found;
    });
    return block as BlockEnv;
  }

  /** A block's hash (32 zero bytes for a block the chain does not have). */
  async blockHash(number: bigint): Promise<Uint8Array> {
    const block = await this.block(number).catch(() => null);
    return block ? hexToBytes(block.hash as `0x${string}`) : new Uint8Array(32);
  }

  /** The cached hash of a block, or undefined without asking the upstream. */
  cachedBlockHash(number: bigint): Uint8Array | undefined {
    const block = this.cache.get(this.key('h', number.toString())) as BlockEnv | undefined;
    return block ? hexToBytes(block.hash as `0x${string}`) : undefined;
  }

  /** The newest account state fetched for this address at any block, if any. */
  lastKnownAccount(address: string): AccountState | undefined {
    return this.lastKnown.get(`a:${address}`) as AccountState | undefined;
  }

  /** The newest value fetched for this slot at any block, if any. */
  lastKnownStorage(address: string, slot: string): Uint8Array | undefined {
    return this.lastKnown.get(`s:${address}:${slot}`) as Uint8Array | undefined;
  }

  account(block: bigint, address: string): Promise<AccountState> {
    return this.cached(this.key('a', block.toString(), address), async () => {
      const tag = hex(block);
      const [balance, nonce, code] = await Promise.all([
        this.state<string>('eth_getBalance', [address, tag], block),
        this.state<string>('eth_getTransactionCount', [address, tag], block),
        this.state<string>('eth_getCode', [address, tag], block),
      ]);
      const codeBytes = hexToBytes((code || '0x') as `0x${string}`);
      const state: AccountState = {
        balance: BigInt(balance),
        nonce: BigInt(nonce),
        code: codeBytes,
        // Native Keccak (service-kit): noble's takes ~1 ms for a router's code, on every account a new block reads.
        codeHash: codeBytes.length === 0 ? KECCAK256_NULL : keccak256Bytes(codeBytes),
        exists: false,
      };
      state.exists = state.balance !== 0n || state.nonce !== 0n || codeBytes.length > 0;
      const known = this.lastKnown.get(`a:${address}`) as AccountState | undefined;
      // Keep one Uint8Array per code: analyses cached per code object (jump destinations) carry over.
      if (known && known.code.length === codeBytes.length && equalBytes(known.codeHash, state.codeHash)) {
        state.code = known.code;
        state.codeHash = known.codeHash;
      }
      this.lastKnown.set(`a:${address}`, state);
      return state;
    }) as Promise<AccountState>;
  }

  /** A storage word (slot as 0x + 64 hex digits), in minimal bytes. */
  storage(block: bigint, address: string, slot: string): Promise<Uint8Array> {
    return this.cached(this.key('s', block.toString(), address, slot), async () => {
      const word = await this.state<string>('eth_getStorageAt', [address, slot, hex(block)], block);
      const value = stripWord(word);
      this.lastKnown.set(`s:${address}:${slot}`, value);
      return value;
    }) as Promise<Uint8Array>;
  }

  /**
   * The keys (`a:<address>`, `s:<address>:<slot>`) the calls' access lists name, from the
   * upstream's `eth_createAccessList` (one batch), or none where it has no such method. Best
   * effort: a failure here only means more misses later.
   */
  async accessListKeys(block: bigint, calls: { from: string; to: string | null; data: string; value?: bigint }[], budget?: ReadBudget): Promise<string[]> {
    if (this.accessListUnsupported) return [];
    budget?.spend(calls.length);
    const keys = new Set<string>();
    const lists = await Promise.all(calls.map((c) => this.accessList(block, c)));
    for (const list of lists) {
      for (const entry of list ?? []) {
        const address = entry.address.toLowerCase();
        keys.add(`a:${address}`);
        for (const key of entry.storageKeys) keys.add(`s:${address}:0x${key.slice(2).toLowerCase().padStart(64, '0')}`);
      }
    }
    return [...keys];
  }

  /** Whether the upstream may answer eth_createAccessList (until it says it cannot). */
  get hasAccessLists(): boolean {
    return !this.accessListUnsupported;
  }

  /** The cached account, or undefined without asking the upstream. */
  cachedAccount(block: bigint, address: string): AccountState | undefined {
    return this.cache.get(this.key('a', block.toString(), address)) as AccountState | undefined;
  }

  /** The cached storage word, or undefined without asking the upstream. */
  cachedStorage(block: bigint, address: string, slot: string): Uint8Array | undefined {
    return this.cache.get(this.key('s', block.toString(), address, slot)) as Uint8Array | undefined;
  }

  /**
   * Fetches what a run missed (`a:<address>`, `s:<address>:<slot>`, `h:<block number>`), in one
   * batch, and gives each value back.
   */
  async fetchMisses(block: bigint, misses: Iterable<string>, budget?: ReadBudget): Promise<Map<string, AccountState | Uint8Array>> {
    const keys = [...misses];
    if (budget) {
      // An account is three calls (balance, nonce, code), a slot or a block hash one.
      let calls = 0;
      for (const miss of keys) {
        const [kind, address, slot] = miss.split(':') as [string, string, string | undefined];
        if (kind === 'a') calls += this.cachedAccount(block, address) ? 0 : 3;
        else if (kind === 's') calls += this.cachedStorage(block, address, slot!) ? 0 : 1;
        else calls += this.cachedBlockHash(BigInt(address)) ? 0 : 1;
      }
      budget.spend(calls);
    }
    const values = await Promise.all(
      keys.map((miss) => {
        const [kind, address, slot] = miss.split(':') as [string, string, string | undefined];
        if (kind === 'a') return this.account(block, address);
        if (kind === 's') return this.storage(block, address, slot!);
        return this.blockHash(BigInt(address));
      }),
    );
    return new Map(keys.map((k, i) => [k, values[i]!]));
  }

  /** A call's access list at a block (cached), or null when the upstream cannot say. */
  private async accessList(block: bigint, c: { from: string; to: string | null; data: string; value?: bigint }): Promise<AccessList | null> {
    const call = { from: c.from, ...(c.to ? { to: c.to } : {}), data: c.data, ...(c.value ? { value: hex(c.value) } : {}), gasPrice: '0x0' };
    const key = this.key('l', block.toString(), createHash('sha256').update(JSON.stringify(call)).digest('base64url'));
    try {
      const found = await this.cached(key, async () => {
        const answer = await this.rpc.atLeast(block).call<{ accessList?: AccessList }>('eth_createAccessList', [call, hex(block)]);
        return { accessList: answer?.accessList ?? [] };
      });
      return (found as { accessList: AccessList }).accessList;
    } catch (err) {
      if (err instanceof RpcError && (err.code === -32601 || err.code === -32004 || /not (supported|found|available)/i.test(err.detail))) {
        this.accessListUnsupported = true;
      }
      return null;
    }
  }

  private key(...parts: string[]): string {
    return `${this.config.chainId}:${parts.join(':')}`;
  }

  private async cached(key: string, load: () => Promise<CacheValue>): Promise<CacheValue> {
    const hit = this.cache.get(key);
    if (hit !== undefined) return hit;
    const pending = this.inflight.get(key);
    if (pending) return pending;
    const promise = load().then(
      (value) => {
        this.cache.set(key, value);
        this.inflight.delete(key);
        return value;
      },
      (err: unknown) => {
        this.inflight.delete(key);
        throw err;
      },
    );
    this.inflight.set(key, promise);
    return promise;
  }

  /** A state read (at `block`: from an endpoint that has it): any error the upstream answers with is a bad answer (we cannot know the state). */
  private async state<T>(method: string, params: unknown[], block?: bigint): Promise<T> {
    try {
      return await (block === undefined ? this.rpc : this.rpc.atLeast(block)).call<T>(method, params);
    } catch (err) {
      if (err instanceof RpcError) {
        throw new ChainError(ChainErrorCode.BadAnswer, `The chain RPC (chain ${this.config.chainId}) failed ${method}: ${err.detail}`);
      }
      if (err instanceof RpcUnavailable) throw this.unavailable(err);
      throw err;
    }
  }

  /** No usable answer from the upstream, as the chain layer's error. */
  private unavailable(err: RpcUnavailable): ChainError {
    const rpc = `The chain RPC (chain ${this.config.chainId})`;
    switch (err.reason) {
      case 'timeout':
        return new ChainError(ChainErrorCode.Timeout, `${rpc} did not answer within ${this.timeoutMs} ms`);
      case 'unreachable':
        return new ChainError(ChainErrorCode.Unreachable, `${rpc} failed: ${err.detail}`);
      case 'bad_answer':
        return new ChainError(ChainErrorCode.BadAnswer, `${rpc} failed: ${err.detail}`);
    }
  }

  private async fetchBlock(tag: string): Promise<BlockEnv | null> {
    const number = tag === 'latest' ? undefined : BigInt(tag);
    let raw = await this.state<RpcBlock | null>('eth_getBlockByNumber', [tag, false], number);
    const highest = this.rpc.highestHead();
    if (!raw && number !== undefined && highest !== null && highest >= number) {
      // Not yet on the endpoint asked, while another showed it: asked of every endpoint.
      const [found] = await this.rpc.everywhere<RpcBlock>([{ method: 'eth_getBlockByNumber', params: [tag, false] }]).catch(() => [undefined]);
      raw = found?.result ?? null;
    }
    if (!raw) return null;
    return {
      number: BigInt(raw.number),
      hash: raw.hash,
      timestamp: BigInt(raw.timestamp),
      gasLimit: BigInt(raw.gasLimit),
      baseFeePerGas: raw.baseFeePerGas ? BigInt(raw.baseFeePerGas) : null,
      coinbase: raw.miner.toLowerCase(),
      mixHash: raw.prevRandao ?? raw.mixHash ?? bytesToHex(new Uint8Array(32)),
      difficulty: BigInt(raw.difficulty ?? '0x0'),
      excessBlobGas: raw.excessBlobGas ? BigInt(raw.excessBlobGas) : null,
      parentBeaconBlockRoot: raw.parentBeaconBlockRoot ?? null,
    };
  }
}
