import { callGas, type SimulateRequest, type SimulationCall } from '@tradeinfra/contracts';
import { keccak256Bytes } from '@tradeinfra/service-kit/plain';
import type { BlockEnv } from '../chain/chain-state.js';
import { invalid } from '../simulation/simulation.errors.js';
import type { ChainRules } from './hardforks.js';

// What is known of a bundle before it runs: its shape, the keys worth prefetching, its gas cap.

/**
 * The shape of a bundle (`exact`): chain, and each call's target (or create) and selector; not
 * its sender or arguments. A target the bundle named before (a token in the first call's data,
 * then called itself) is written as where it was named, so a bundle that launches a token and
 * then trades it has one shape whichever token it is. `loose`: every other target written as `*`
 * too (the fallback of a shape never seen: a new pair called directly, after the last one). Both
 * in one walk over the calls.
 */
export function shapeOf(chainId: number, request: SimulateRequest, named = namedAddresses(request)): { exact: string; loose: string } {
  const firstNamed = new Map<string, string>();
  const exact: string[] = [];
  const loose: string[] = [];
  request.calls.forEach((c, i) => {
    const to = c.to?.toLowerCase();
    const selector = c.data.slice(0, 10);
    const known = to === undefined ? 'create' : firstNamed.get(to);
    exact.push(`${known ?? to}:${selector}`);
    loose.push(`${known ?? '*'}:${selector}`);
    for (const [where, address] of named) if (where.startsWith(`${i}.`) && !firstNamed.has(address)) firstNamed.set(address, `@${where}`);
  });
  return { exact: `${chainId}|${exact.join('|')}`, loose: `${chainId}|${loose.join('|')}` };
}

/**
 * The addresses a bundle names, by where it names them (`<call>.from`, `<call>.to`, and
 * `<call>.<offset>` for an address-sized ABI word of its data: 12 zero bytes, then 20 bytes that
 * are not a small number), lowercase.
 */
export function namedAddresses(request: SimulateRequest): Map<string, string> {
  const named = new Map<string, string>();
  request.calls.forEach((c, i) => {
    named.set(`${i}.from`, c.from.toLowerCase());
    if (c.to) named.set(`${i}.to`, c.to.toLowerCase());
    for (let at = 10; at + 64 <= c.data.length; at += 64) {
      const word = c.data.slice(at, at + 64);
      if (word.startsWith('000000000000000000000000') && !word.startsWith('0000000000000000000000000000000000')) {
        named.set(`${i}.${at}`, `0x${word.slice(24).toLowerCase()}`);
      }
    }
  });
  return named;
}

/**
 * Keys worth fetching before any run: each call's sender and target, and every account whose
 * address appears as an ABI word in a call's data (a token, a pool, a recipient: what the call
 * will most likely touch).
 */
export function staticKeys(request: SimulateRequest, named = namedAddresses(request)): string[] {
  return [...new Set([...named.values()].map((a) => `a:${a}`))];
}

/**
 * What a bundle of the same shape read (`keys`, naming `before`), for this one (naming `now`):
 * the earlier bundle's keys with each replaced address swapped in, so a token launched like the
 * last one runs once. Why and the exact rules: docs/design/simulation-internals.md.
 */
export function carriedKeys(
  keys: Iterable<string>,
  before: Map<string, string>,
  now: Map<string, string>,
  preimages: ReadonlyMap<string, readonly [string, string]> = new Map(),
): string[] {
  const replaced = new Map<string, string | null>();
  for (const [where, old] of before) {
    const next = now.get(where);
    if (next === undefined || next === old) continue;
    const seen = replaced.get(old);
    replaced.set(old, seen === undefined || seen === next ? next : null);
  }
  const stillNamed = new Set(now.values());
  /** A mapping entry's slot with each replaced address it was hashed from swapped in (nested mappings too); null: unchanged. */
  const moved = (slot: string, depth = 0): { slot: string; from: string[] } | null => {
    const preimage = depth < MAX_MAPPING_DEPTH ? preimages.get(slot) : undefined;
    if (!preimage) return null;
    const [address, base] = preimage;
    const next = replaced.get(address);
    const inner = moved(base, depth + 1);
    if (!next && !inner) return null;
    return { slot: mappingSlot(next ?? address, inner?.slot ?? base), from: [...(next ? [address] : []), ...(inner?.from ?? [])] };
  };
  const out = new Set<string>();
  for (const key of keys) {
    const [kind, address, slot] = key.split(':') as [string, string, string | undefined];
    const next = kind === 'h' ? undefined : replaced.get(address);
    const entry = kind === 's' ? moved(slot!) : null;
    if (!next && !entry) {
      out.add(key);
      continue;
    }
    const newSlot = entry?.slot ?? slot;
    out.add(newSlot === undefined ? `${kind}:${next ?? address}` : `${kind}:${next ?? address}:${newSlot}`);
    // The old key too while every address it came from is still named.
    if ([...(next ? [address] : []), ...(entry?.from ?? [])].every((a) => stillNamed.has(a))) out.add(key);
  }
  return [...out];
}

/** How deep nested mappings are followed (`m[a][b][c]…`). */
const MAX_MAPPING_DEPTH = 4;

/** The slot of the entry of `address` in the mapping at `base`: keccak256(address word ‖ base). */
export function mappingSlot(address: string, base: string): string {
  const words = Buffer.from(`${address.slice(2).padStart(64, '0')}${base.slice(2)}`, 'hex');
  return `0x${Buffer.from(keccak256Bytes(words)).toString('hex')}`;
}

/** The preimages (BundleReads.preimages) of the storage keys among `keys`, nested ones included. */
export function preimagesOf(keys: Iterable<string>, preimages: ReadonlyMap<string, readonly [string, string]>): Map<string, readonly [string, string]> {
  const out = new Map<string, readonly [string, string]>();
  const add = (slot: string, depth: number) => {
    const preimage = preimages.get(slot);
    if (!preimage || depth >= MAX_MAPPING_DEPTH || out.has(slot)) return;
    out.set(slot, preimage);
    add(preimage[1], depth + 1);
  };
  if (preimages.size === 0) return out;
  for (const key of keys) if (key.startsWith('s:')) add(key.slice(key.lastIndexOf(':') + 1), 0);
  return out;
}

/**
 * The per-call gas cap (the block gas limit, the fork's transaction gas cap, SIM_MAX_CALL_GAS),
 * and refuses what a node would refuse before running anything: a call's gas above it, init
 * code above EIP-3860's limit.
 */
export function validateCalls(calls: SimulationCall[], rules: ChainRules, block: BlockEnv, maxCallGas: number): bigint {
  let cap = block.gasLimit;
  let why = `the block gas limit`;
  if (rules.txGasCap !== null && rules.txGasCap < cap) {
    cap = rules.txGasCap;
    why = rules.txGasCapReason!;
  }
  if (maxCallGas > 0 && BigInt(maxCallGas) < cap) {
    cap = BigInt(maxCallGas);
    why = 'the per-call gas cap of this service (SIM_MAX_CALL_GAS)';
  }
  calls.forEach((call, index) => {
    const { gas, field } = callGas(call);
    if (gas !== undefined && gas > cap) {
      throw invalid(`calls.${index}.${field}`, `must be at most ${cap}: ${why}`);
    }
    const initCode = (call.data.length - 2) / 2;
    if (call.to === null && rules.maxInitCodeSize !== null && BigInt(initCode) > rules.maxInitCodeSize) {
      throw invalid(
        `calls.${index}.data`,
        `is ${initCode} bytes of init code; a creation may carry at most ${rules.maxInitCodeSize} (EIP-3860, on ${rules.label})`,
      );
    }
  });
  return cap;
}
