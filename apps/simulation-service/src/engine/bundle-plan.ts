import type { SimulateRequest, SimulationCall } from '@tradeinfra/contracts';
import type { BlockEnv } from '../chain/chain-state.js';
import { invalid } from '../simulation/simulation.errors.js';
import type { ChainRules } from './hardforks.js';

// What is known of a bundle before it runs: its shape, the keys worth prefetching, its gas cap.

/** The shape of a bundle: chain, and each call's sender, target and selector. */
export function shapeOf(chainId: number, request: SimulateRequest): string {
  return `${chainId}|${request.calls.map((c) => `${c.from}>${c.to ?? 'create'}:${c.data.slice(0, 10)}`).join('|')}`;
}

/**
 * Keys worth fetching before any run: each call's sender and target, and every account whose
 * address appears as an ABI word in a call's data (a token, a pool, a recipient: what the call
 * will most likely touch).
 */
export function staticKeys(request: SimulateRequest): string[] {
  const keys = new Set<string>();
  for (const c of request.calls) {
    keys.add(`a:${c.from}`);
    if (c.to) keys.add(`a:${c.to}`);
    for (let i = 10; i + 64 <= c.data.length; i += 64) {
      const word = c.data.slice(i, i + 64);
      // An address-sized word: 12 zero bytes, then 20 bytes that are not a small number.
      if (word.startsWith('000000000000000000000000') && !word.startsWith('0000000000000000000000000000000000')) keys.add(`a:0x${word.slice(24)}`);
    }
  }
  return [...keys];
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
    if (call.gas !== undefined && call.gas > cap) {
      throw invalid(`calls.${index}.${call.gasField ?? 'gas'}`, `must be at most ${cap}: ${why}`);
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
