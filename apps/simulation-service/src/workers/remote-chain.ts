import type { MessagePort } from 'node:worker_threads';
import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { LRUCache } from 'lru-cache';
import { createStateCache, type AccountState, type BlockEnv, type ChainSource } from '../chain/chain-state.js';
import type { ChainConfig } from '../config/env.js';
import { fromWire, type MainAnswer, type WorkerAsk } from './protocol.js';

type Value = AccountState | Uint8Array;
type Question = WorkerAsk extends unknown ? (WorkerAsk extends infer A ? (A extends WorkerAsk ? Omit<A, 'seq'> : never) : never) : never;

/**
 * What one worker knows of one chain: every value the main thread sent it, keyed as the main
 * thread's cache is (by block), the newest value per key at any block, and one Uint8Array per
 * code (so the jump analysis and fixed-slot scans cached per code object carry over).
 */
export class WorkerChainCache {
  readonly values: LRUCache<string, never>;
  readonly lastKnown = new LRUCache<string, Value>({ max: 200_000 });
  private readonly codes = new LRUCache<string, Uint8Array>({ max: 20_000 });

  constructor(maxBytes: number) {
    this.values = createStateCache(maxBytes) as unknown as LRUCache<string, never>;
  }

  get<T>(key: string): T | undefined {
    return this.values.get(key) as T | undefined;
  }

  set(key: string, value: unknown): void {
    this.values.set(key, value as never);
  }

  /** The same Uint8Array for the same code. */
  internCode(state: AccountState): AccountState {
    if (state.code.length === 0) return state;
    const hash = bytesToHex(state.codeHash);
    const known = this.codes.get(hash);
    if (known) return { ...state, code: known };
    this.codes.set(hash, state.code);
    return state;
  }
}

/**
 * A chain as a worker sees it: reads answered from what the worker was sent before, misses and
 * headers asked of the main thread (whose ChainState reads the node, shares in-flight requests
 * and counts the simulation's upstream reads) over the task's port.
 */
export class RemoteChain implements ChainSource {
  private seq = 0;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  constructor(
    readonly config: ChainConfig,
    readonly hasAccessLists: boolean,
    private readonly port: MessagePort,
    private readonly cache: WorkerChainCache,
  ) {
    port.on('message', (answer: MainAnswer) => {
      const waiting = this.pending.get(answer.seq);
      if (!waiting) return;
      this.pending.delete(answer.seq);
      if (answer.error) waiting.reject(fromWire(answer.error));
      else waiting.resolve(answer.value);
    });
  }

  /** Stops listening (the task is over). */
  close(): void {
    this.port.close();
  }

  private ask<T>(question: Question): Promise<T> {
    const seq = ++this.seq;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(seq, { resolve: resolve as (v: unknown) => void, reject });
      this.port.postMessage({ ...question, seq });
    });
  }

  private key(...parts: string[]): string {
    return `${this.config.chainId}:${parts.join(':')}`;
  }

  async block(number: bigint | null): Promise<BlockEnv> {
    if (number !== null) {
      const known = this.cache.get<BlockEnv>(this.key('h', number.toString()));
      if (known) return known;
    }
    const block = await this.ask<BlockEnv>({ op: 'block', number });
    this.cache.set(this.key('h', block.number.toString()), block);
    return block;
  }

  accessListKeys(block: bigint, calls: { from: string; to: string | null; data: string; value?: bigint }[]): Promise<string[]> {
    return this.ask<string[]>({ op: 'accessList', block, calls: calls.map((c) => ({ from: c.from, to: c.to, data: c.data, value: c.value })) });
  }

  cachedAccount(block: bigint, address: string): AccountState | undefined {
    return this.cache.get<AccountState>(this.key('a', block.toString(), address));
  }

  cachedStorage(block: bigint, address: string, slot: string): Uint8Array | undefined {
    return this.cache.get<Uint8Array>(this.key('s', block.toString(), address, slot));
  }

  cachedBlockHash(number: bigint): Uint8Array | undefined {
    const hash = this.cache.get<Uint8Array>(this.key('bh', number.toString()));
    if (hash) return hash;
    const header = this.cache.get<BlockEnv>(this.key('h', number.toString()));
    return header ? hexToBytes(header.hash as `0x${string}`) : undefined;
  }

  lastKnownAccount(address: string): AccountState | undefined {
    return this.cache.lastKnown.get(this.key('a', address)) as AccountState | undefined;
  }

  lastKnownStorage(address: string, slot: string): Uint8Array | undefined {
    return this.cache.lastKnown.get(this.key('s', address, slot)) as Uint8Array | undefined;
  }

  async fetchMisses(block: bigint, misses: Iterable<string>): Promise<Map<string, Value>> {
    const values = await this.ask<Map<string, Value>>({ op: 'fetch', block, keys: [...misses] });
    const out = new Map<string, Value>();
    for (const [miss, raw] of values) {
      const [kind, address, slot] = miss.split(':') as [string, string, string | undefined];
      let value = raw;
      if (kind === 'a') {
        value = this.cache.internCode(raw as AccountState);
        this.cache.set(this.key('a', block.toString(), address), value);
        this.cache.lastKnown.set(this.key('a', address), value);
      } else if (kind === 's') {
        this.cache.set(this.key('s', block.toString(), address, slot!), value);
        this.cache.lastKnown.set(this.key('s', address, slot!), value);
      } else {
        this.cache.set(this.key('bh', address), value);
      }
      out.set(miss, value);
    }
    return out;
  }
}
