import type { EVMResult, Message } from '@ethereumjs/evm';
import { createVM, type VM } from '@ethereumjs/vm';
import { ForkedStateManager, type StateReads } from './forked-state-manager.js';
import type { ChainRules } from './hardforks.js';
import { instrumentedOpcodes } from './instrumented-opcodes.js';
import { RULES_KEY } from './jump-analysis-cache.js';
import { SIM, type SimContext, type WithContext } from './sim-context.js';
import { TransferTracker } from './transfer-tracker.js';

// VMs: one pool per rules, reused across simulations.

const pools = new Map<string, VM[]>();
/** Idle VMs kept per rules (more are made under load and dropped when returned beyond this). */
const POOL_MAX = 32;

export async function acquireVm(rules: ChainRules): Promise<VM> {
  return pools.get(rules.key)?.pop() ?? createVmFor(rules);
}

/** Returns a VM left clean (between transactions) to its pool; a VM that may not be clean is just dropped. */
export function releaseVm(rules: ChainRules, vm: VM): void {
  let pool = pools.get(rules.key);
  if (!pool) pools.set(rules.key, (pool = []));
  if (pool.length >= POOL_MAX) return;
  // An idle VM keeps nothing of the simulation it ran.
  bind(vm, IDLE_STATE, IDLE_CONTEXT);
  pool.push(vm);
}

/** Points a VM at this simulation's state and context. */
export function bind(vm: VM, state: ForkedStateManager, context: SimContext): void {
  (vm as unknown as { stateManager: ForkedStateManager }).stateManager = state;
  vm.evm.stateManager = state;
  (vm.evm.journal as unknown as { stateManager: ForkedStateManager }).stateManager = state;
  (vm.evm as unknown as WithContext)[SIM] = context;
}

const NO_READS: StateReads = {
  account: () => {
    throw new Error('a pooled VM ran without a simulation bound to it');
  },
  storage: () => {
    throw new Error('a pooled VM ran without a simulation bound to it');
  },
};

const IDLE_STATE = new ForkedStateManager(NO_READS);
const IDLE_CONTEXT = { tracker: new TransferTracker(), deadline: 0, jumps: 0, reads: NO_READS } as unknown as SimContext;

async function createVmFor(rules: ChainRules): Promise<VM> {
  const holder: { vm?: VM } = {};
  const reads = () => (holder.vm!.evm as unknown as WithContext)[SIM].reads;
  const vm = await createVM({
    common: rules.common.copy(),
    params: {},
    stateManager: new ForkedStateManager(NO_READS),
    blockchain: {
      // BLOCKHASH: from what is known about that block (a miss like any other read).
      getBlock: async (n: number) => {
        const hash = reads().blockHash(BigInt(n));
        return { hash: () => hash };
      },
      putBlock: async () => {},
      shallowCopy() {
        return this;
      },
    } as never,
    evmOpts: { customOpcodes: instrumentedOpcodes(rules), customPrecompiles: rules.customPrecompiles, params: {} },
  });
  holder.vm = vm;
  (vm.evm as unknown as { [RULES_KEY]: string })[RULES_KEY] = rules.key;
  const opcodeMap = (vm.evm as unknown as { _opcodeMap: { opcodeInfo: object }[] })._opcodeMap;
  for (const code of [0x20, 0x51, 0x52, 0x56, 0x57]) opcodeMap[code] = { ...opcodeMap[code]!, opcodeInfo: { ...opcodeMap[code]!.opcodeInfo, isAsync: false } };
  // ethereumjs keeps a removed precompile's address in its map (and would warm it): drop it.
  for (const [address, run] of vm.evm.precompiles) if (run === undefined) vm.evm.precompiles.delete(address);
  const context = () => (vm.evm as unknown as WithContext)[SIM];
  vm.evm.events!.on('beforeMessage', (m: Message) => context().tracker.beforeMessage(m));
  vm.evm.events!.on('afterMessage', (r: EVMResult) => context().tracker.afterMessage(r));
  return vm;
}
