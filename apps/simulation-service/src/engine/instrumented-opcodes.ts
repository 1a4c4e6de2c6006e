import { getOpcodesForHF, type EVMOpts } from '@ethereumjs/evm';
import type { ChainRules } from './hardforks.js';
import { contextOf, DeadlineExceeded, type RunState, type SimContext } from './sim-context.js';

type CustomOpcode = NonNullable<EVMOpts['customOpcodes']>[number];

const instrumented = new Map<string, CustomOpcode[]>();

/**
 * KECCAK256 notes the preimage of a mapping entry (see mappingEntry); SELFDESTRUCT reports its
 * transfer; JUMP/JUMPI check the deadline now and then, so an endless loop with a huge gas limit
 * ends by the clock as well as by gas; on Polygon since Chicago,
 * SLOAD and SSTORE take PIP-88's cold prices. One set per rules, shared by every simulation
 * (each finds its own context through its EVM), which is what lets the jump analysis be cached
 * across simulations.
 */
export function instrumentedOpcodes(rules: ChainRules): CustomOpcode[] {
  const cached = instrumented.get(rules.key);
  if (cached) return cached;
  const { handlers, dynamicGasHandlers, opcodes } = getOpcodesForHF(rules.common);
  const wrap = (code: number, before: (runState: RunState, sim: SimContext) => Promise<void>): CustomOpcode => {
    const original = handlers.get(code)!;
    const info = opcodes.get(code)!;
    return {
      opcode: code,
      opcodeName: info.name,
      baseFee: info.fee,
      gasFunction: dynamicGasHandlers.get(code),
      logicFunction: async (runState: RunState, c) => {
        await before(runState, contextOf(runState));
        return original(runState, c);
      },
    };
  };
  // JUMP and JUMPI stay synchronous (ethereumjs awaits a custom opcode unless told otherwise, see
  // createVmFor in vm-pool.ts, where these, KECCAK256 and MLOAD/MSTORE are marked synchronous):
  // an await per jump would slow a loop down by half.
  const clocked = (code: number): CustomOpcode => {
    const original = handlers.get(code)!;
    const info = opcodes.get(code)!;
    return {
      opcode: code,
      opcodeName: info.name,
      baseFee: info.fee,
      gasFunction: dynamicGasHandlers.get(code),
      logicFunction: ((runState: RunState, c: Parameters<typeof original>[1]) => {
        const sim = contextOf(runState);
        if ((++sim.jumps & 63) === 0 && performance.now() > sim.deadline) throw new DeadlineExceeded();
        return original(runState, c);
      }) as never,
    };
  };
  /** MLOAD/MSTORE without ethereumjs's bigint ↔ hex string ↔ bytes round trip (same memory, same gas function). */
  const memoryOp = (code: number, run: (runState: RunState) => void): CustomOpcode => {
    const info = opcodes.get(code)!;
    return { opcode: code, opcodeName: info.name, baseFee: info.fee, gasFunction: dynamicGasHandlers.get(code), logicFunction: run as never };
  };
  const set = [
    clocked(0x56),
    clocked(0x57),
    memoryOp(0x51, (runState) => {
      const pos = Number(runState.stack.pop());
      const memory = runState.memory as unknown as { extend(offset: number, size: number): void; _store: Uint8Array };
      memory.extend(pos, 32);
      const view = new DataView(memory._store.buffer, memory._store.byteOffset + pos, 32);
      runState.stack.push((view.getBigUint64(0) << 192n) | (view.getBigUint64(8) << 128n) | (view.getBigUint64(16) << 64n) | view.getBigUint64(24));
    }),
    memoryOp(0x52, (runState) => {
      const [offset, word] = runState.stack.popN(2) as [bigint, bigint];
      const pos = Number(offset);
      const memory = runState.memory as unknown as { extend(offset: number, size: number): void; _store: Uint8Array };
      memory.extend(pos, 32);
      const view = new DataView(memory._store.buffer, memory._store.byteOffset + pos, 32);
      view.setBigUint64(0, word >> 192n);
      view.setBigUint64(8, BigInt.asUintN(64, word >> 128n));
      view.setBigUint64(16, BigInt.asUintN(64, word >> 64n));
      view.setBigUint64(24, BigInt.asUintN(64, word));
    }),
    mappingEntry(handlers.get(0x20)!, opcodes.get(0x20)!, dynamicGasHandlers.get(0x20)),
    wrap(0xff, async (runState, sim) => {
      const self = runState.interpreter.getAddress();
      const beneficiary = runState.stack.peek(1)[0]!;
      const balance = await runState.interpreter.getExternalBalance(self);
      sim.tracker.selfdestruct(self.toString(), `0x${beneficiary.toString(16).padStart(40, '0')}`, balance);
    }),
  ];
  if (rules.pip88) set.push(...pip88Opcodes(handlers, dynamicGasHandlers, opcodes));
  instrumented.set(rules.key, set);
  return set;
}

/**
 * PIP-88 (Polygon Chicago): EIP-2929's single cold-slot price split in two and raised: a cold
 * SLOAD costs 5460; SSTORE's cold surcharge is 2940 (so a reset still totals 5000: 2940 + 2060)
 * and clearing a slot refunds 3960. Every other EIP-2200/2929/3529 rule is unchanged, so the
 * stock gas functions run with those three prices swapped in.
 */
function pip88Opcodes(
  handlers: ReturnType<typeof getOpcodesForHF>['handlers'],
  dynamicGasHandlers: ReturnType<typeof getOpcodesForHF>['dynamicGasHandlers'],
  opcodes: ReturnType<typeof getOpcodesForHF>['opcodes'],
): CustomOpcode[] {
  const priced = (code: number, prices: Record<string, bigint>): CustomOpcode => {
    const gas = dynamicGasHandlers.get(code)!;
    const info = opcodes.get(code)!;
    return {
      opcode: code,
      opcodeName: info.name,
      baseFee: info.fee,
      gasFunction: async (runState: RunState, base: bigint, common) => {
        const repriced = new Proxy(common, {
          get: (target, prop) => (prop === 'param' ? (name: string) => prices[name] ?? target.param(name) : Reflect.get(target, prop, target)),
        });
        return gas(runState, base, repriced);
      },
      logicFunction: handlers.get(code)!,
    };
  };
  return [priced(0x54, { coldsloadGas: 5460n }), priced(0x55, { coldsloadGas: 2940n, sstoreCleanEIP2200Gas: 2060n, sstoreClearRefundEIP2200Gas: 3960n })];
}

/**
 * KECCAK256, which also notes, for a hash of 64 bytes whose first word is an address (12 zero
 * bytes, then 20 that are not a small number: namedAddresses' rule), the slot it makes and its
 * two words: that is how Solidity and Vyper place a mapping's entry for an address (a balance,
 * an allowance, a pair in a factory). The next bundle of the same shape then prefetches the
 * entries of the addresses it names instead (carriedKeys). Synchronous, as the original.
 */
function mappingEntry(
  keccak: NonNullable<ReturnType<ReturnType<typeof getOpcodesForHF>['handlers']['get']>>,
  info: { name: string; fee: number },
  gasFunction: ReturnType<typeof getOpcodesForHF>['dynamicGasHandlers'] extends Map<number, infer G> ? G | undefined : never,
): CustomOpcode {
  return {
    opcode: 0x20,
    opcodeName: info.name,
    baseFee: info.fee,
    gasFunction,
    logicFunction: ((runState: RunState, common: Parameters<typeof keccak>[1]) => {
      const [offsetWord, length] = runState.stack.peek(2) as [bigint, bigint];
      const offset = Number(offsetWord);
      void keccak(runState, common); // synchronous in the pinned ethereumjs (see fast-interpreter.spec.ts)
      if (length !== 64n) return;
      const store = (runState.memory as unknown as { _store: Uint8Array })._store;
      for (let i = offset; i < offset + 12; i++) if (store[i] !== 0) return;
      if (store[offset + 12] === 0 && store[offset + 13] === 0 && store[offset + 14] === 0 && store[offset + 15] === 0 && store[offset + 16] === 0) return;
      const words = Buffer.from(store.buffer, store.byteOffset + offset, 64);
      const slot = `0x${runState.stack.peek(1)[0]!.toString(16).padStart(64, '0')}`;
      contextOf(runState).reads.preimages.set(slot, [`0x${words.toString('hex', 12, 32)}`, `0x${words.toString('hex', 32, 64)}`]);
    }) as never,
  };
}
