import type { AccountState, ChainSource, ReadBudget } from '../chain/chain-state.js';
import { ABSENT_ACCOUNT, sameBytes, type StateReads } from './forked-state-manager.js';

type Value = AccountState | Uint8Array;

const ZERO_HASH = new Uint8Array(32);

/** A read the cache could not answer: what the run assumed instead, and the first call that read it. */
interface Miss {
  assumed: Value;
  call: number;
}

/**
 * Everything one simulation reads from the chain at its block, and what it had to assume: a
 * read the shared cache cannot answer never waits; it is assumed, recorded as a miss, fetched in
 * one batch after the run and checked (docs/design/simulation-internals.md).
 */
export class BundleReads implements StateReads {
  /** Every chain key read (`a:`, `s:`, `h:`), for the next bundle of the same shape. */
  readonly touched = new Set<string>();
  /**
   * The slots this simulation hashed from an address word and a base word (`keccak256(address ‖
   * base)`, a mapping's entry for that address), slot → [address, base]: the next bundle of the
   * same shape finds the entries of the addresses it names instead (carriedKeys).
   */
  readonly preimages = new Map<string, readonly [string, string]>();
  /** Storage slots read per account (for the `updated` of an account whose storage is cleared). */
  private readonly slotsRead = new Map<string, Set<string>>();
  private readonly local = new Map<string, Value>();
  private misses = new Map<string, Miss>();
  /** This round's misses sent upstream early (fetchEarly, a batch per call), while the run went on. */
  private early: { keys: Set<string>; values: Promise<Map<string, Value>> }[] = [];
  /** The call running now (misses are attributed to it). */
  call = 0;
  /** Upstream batches this simulation sent for its misses. */
  fetches = 0;

  constructor(
    private readonly chain: ChainSource,
    readonly block: bigint,
    private readonly budget?: ReadBudget,
  ) {}

  /** Forgets the last round's misses (their keys are known by now). */
  beginRound(): void {
    this.misses = new Map();
    this.early = [];
  }

  get missCount(): number {
    return this.misses.size;
  }

  /**
   * Whether every read `call` had to assume this round went upstream early (fetchEarly) and came
   * back as assumed: then its result stands whatever the later calls read. False when one did not,
   * was not sent early, or could not be read.
   */
  async confirmed(call: number): Promise<boolean> {
    const assumed = [...this.misses].filter(([, miss]) => miss.call === call);
    const batches = [...this.early];
    try {
      const fetched = await Promise.all(batches.map((batch) => batch.values));
      return assumed.every(([key, miss]) => {
        const i = batches.findIndex((batch) => batch.keys.has(key));
        const value = i === -1 ? undefined : fetched[i]!.get(key);
        return value !== undefined && sameValue(miss.assumed, value);
      });
    } catch {
      return false;
    }
  }

  /** The first call that read a key this round had to assume, or -1. */
  get firstMissingCall(): number {
    let first = -1;
    for (const m of this.misses.values()) if (first === -1 || m.call < first) first = m.call;
    return first;
  }

  account(address: string): AccountState {
    const key = `a:${address}`;
    this.touched.add(key);
    const value = (this.local.get(key) as AccountState | undefined) ?? this.chain.cachedAccount(this.block, address);
    if (value) return value;
    return this.assume(key, () => this.chain.lastKnownAccount(address) ?? ABSENT_ACCOUNT) as AccountState;
  }

  storage(address: string, slot: string): Uint8Array {
    const key = `s:${address}:${slot}`;
    this.touched.add(key);
    let slots = this.slotsRead.get(address);
    if (!slots) this.slotsRead.set(address, (slots = new Set()));
    slots.add(slot);
    const value = (this.local.get(key) as Uint8Array | undefined) ?? this.chain.cachedStorage(this.block, address, slot);
    if (value) return value;
    return this.assume(key, () => this.chain.lastKnownStorage(address, slot) ?? new Uint8Array(0)) as Uint8Array;
  }

  blockHash(number: bigint): Uint8Array {
    const key = `h:${number}`;
    this.touched.add(key);
    const value = (this.local.get(key) as Uint8Array | undefined) ?? this.chain.cachedBlockHash(number);
    if (value) return value;
    return this.assume(key, () => ZERO_HASH) as Uint8Array;
  }

  slotsReadOf(address: string): Iterable<string> {
    return this.slotsRead.get(address) ?? [];
  }

  private assume(key: string, guess: () => Value): Value {
    const miss = this.misses.get(key);
    if (miss) return miss.assumed;
    const assumed = guess();
    this.misses.set(key, { assumed, call: this.call });
    return assumed;
  }

  /**
   * Sends the misses of the calls run so far that are not on their way yet upstream now, so
   * their answers travel while the later calls run; fetchMisses waits for them with the rest.
   * Nothing changes for the run: the answers are only read by fetchMisses.
   */
  fetchEarly(): void {
    const sent = new Set(this.early.flatMap((batch) => [...batch.keys]));
    const keys = new Set([...this.misses.keys()].filter((key) => !sent.has(key)));
    if (keys.size === 0) return;
    const values = this.chain.fetchMisses(this.block, keys, this.budget);
    values.catch(() => undefined); // fetchMisses takes the error
    this.early.push({ keys, values });
  }

  /**
   * Fetches this round's misses and returns the first call whose assumptions were wrong (-1:
   * every assumption held, the run was exact). Misses sent early are awaited; the rest go in one
   * upstream batch with `extra` keys worth having and the fixed slots of every contract the run
   * reached. When every miss went early and every assumption held, nothing more is fetched: the
   * run is exact, and the keys worth having would only serve a run that is not coming.
   */
  async fetchMisses(extra: Iterable<string> = []): Promise<number> {
    const misses = this.misses;
    const early = this.early;
    this.early = [];
    const sent = new Set(early.flatMap((batch) => [...batch.keys]));
    const firstWrongOf = (values: Iterable<[string, Value]>, firstWrong: number) => {
      for (const [key, value] of values) {
        this.local.set(key, value);
        const miss = misses.get(key);
        if (miss && !sameValue(miss.assumed, value) && (firstWrong === -1 || miss.call < firstWrong)) firstWrong = miss.call;
      }
      return firstWrong;
    };
    const earlyValues = Promise.all(early.map((batch) => batch.values));
    // Every miss went early: their answers alone say whether the run was exact.
    const allEarly = early.length > 0 && [...misses.keys()].every((key) => sent.has(key));
    let firstWrong = -1;
    if (allEarly) {
      for (const values of await earlyValues) firstWrong = firstWrongOf(values, firstWrong);
      if (firstWrong === -1) {
        this.fetches++;
        return -1;
      }
    }
    const keys = new Set([...misses.keys()].filter((key) => !sent.has(key)));
    for (const key of extra) if (!this.local.has(key) && !this.isCached(key)) keys.add(key);
    // The fixed slots of every contract the run reached (a lock, a pool's reserves, an owner):
    // a run that assumed one of them wrong often turned back before reading the next ones.
    for (const key of this.touched) {
      if (!key.startsWith('a:')) continue;
      const address = key.slice(2);
      const account = (this.local.get(key) as AccountState | undefined) ?? this.chain.cachedAccount(this.block, address);
      if (!account || account.code.length === 0) continue;
      for (const slot of fixedSlots(account.code)) {
        const slotKey = `s:${address}:${slot}`;
        if (!this.local.has(slotKey) && !this.isCached(slotKey)) keys.add(slotKey);
      }
    }
    for (const key of sent) keys.delete(key);
    this.fetches++;
    const [sentValues, rest] = await Promise.all([
      allEarly ? [] : earlyValues,
      keys.size > 0 ? this.chain.fetchMisses(this.block, keys, this.budget) : undefined,
    ]);
    for (const values of sentValues) firstWrong = firstWrongOf(values, firstWrong);
    return firstWrongOf(rest ?? [], firstWrong);
  }

  /** Fetches keys before a run (what the same shape read last time, access lists, …), best effort. */
  async prefetch(keys: Iterable<string>): Promise<void> {
    const wanted = [...keys].filter((k) => !this.local.has(k) && !this.isCached(k));
    if (wanted.length === 0) return;
    const values = await this.chain.fetchMisses(this.block, wanted, this.budget).catch(() => null);
    for (const [key, value] of values ?? []) this.local.set(key, value);
  }

  private isCached(key: string): boolean {
    const [kind, address, slot] = key.split(':') as [string, string, string | undefined];
    if (kind === 'a') return this.chain.cachedAccount(this.block, address) !== undefined;
    if (kind === 's') return this.chain.cachedStorage(this.block, address, slot!) !== undefined;
    return this.chain.cachedBlockHash(BigInt(address)) !== undefined;
  }
}

/** At most this many fixed slots per contract are fetched ahead. */
const MAX_FIXED_SLOTS = 32;
const fixedSlotsOfCode = new WeakMap<Uint8Array, string[]>();

/**
 * The storage slots a contract's code reads at a constant position (`PUSH0 SLOAD`,
 * `PUSH1 k SLOAD`, `PUSH2 k SLOAD`: how compilers read a state variable), in code order, as
 * 32-byte words. Push data is skipped, so bytes inside a push are never taken for opcodes.
 */
export function fixedSlots(code: Uint8Array): string[] {
  const known = fixedSlotsOfCode.get(code);
  if (known) return known;
  const slots = new Set<string>();
  for (let pc = 0; pc < code.length && slots.size < MAX_FIXED_SLOTS;) {
    const op = code[pc]!;
    if (op === 0x5f && code[pc + 1] === 0x54) slots.add(slotWord(0));
    else if (op === 0x60 && code[pc + 2] === 0x54 && pc + 1 < code.length) slots.add(slotWord(code[pc + 1]!));
    else if (op === 0x61 && code[pc + 3] === 0x54 && pc + 2 < code.length) slots.add(slotWord((code[pc + 1]! << 8) | code[pc + 2]!));
    pc += op >= 0x60 && op <= 0x7f ? op - 0x5e : 1;
  }
  const found = [...slots];
  fixedSlotsOfCode.set(code, found);
  return found;
}

const slotWord = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

function sameValue(a: Value, b: Value): boolean {
  if (a instanceof Uint8Array || b instanceof Uint8Array) return a instanceof Uint8Array && b instanceof Uint8Array && sameBytes(a, b);
  return a.exists === b.exists && a.balance === b.balance && a.nonce === b.nonce && sameBytes(a.codeHash, b.codeHash);
}
