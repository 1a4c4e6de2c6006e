import { randomUUID } from 'node:crypto';
import { createBlock, type Block } from '@ethereumjs/block';
import { getOpcodesForHF, type EVMOpts, type EVMResult, type Message } from '@ethereumjs/evm';
import { createLegacyTx } from '@ethereumjs/tx';
import { Account, bytesToHex, createAddressFromString, hexToBytes, toChecksumAddress, type Address } from '@ethereumjs/util';
import { createVM, runTx, type RunTxResult, type VM } from '@ethereumjs/vm';
import type { SimulateRequest, SimulatedCall, SimulationCall, SimulationOverrides, SimulationResult, StateUpdate } from '@tradeinfra/contracts';
import { LRUCache } from 'lru-cache';
import type { BlockEnv, ChainSource, ReadBudget } from '../chain/chain-state.js';
import { stripWord } from '../chain/chain-state.js';
import { SimulationError, SimulationErrorCode, invalid } from '../simulation/simulation.errors.js';
import { BundleReads } from './bundle-reads.js';
import { ForkedStateManager, sameBytes, type AccountChange, type StateReads } from './forked-state-manager.js';
import { rulesFor, type ChainRules } from './hardforks.js';
import { installFastInterpreter } from './fast-interpreter.js';
import { installJumpAnalysisCache, RULES_KEY } from './jump-analysis-cache.js';
import { callError } from './revert-reason.js';
import { TransferTracker } from './transfer-tracker.js';

type CustomOpcode = NonNullable<EVMOpts['customOpcodes']>[number];
type RunState = Parameters<NonNullable<ReturnType<ReturnType<typeof getOpcodesForHF>['handlers']['get']>>>[0];

export interface SimulateOptions {
  /** Absolute deadline (performance.now() ms) for the whole simulation. */
  deadline: number;
  /** Per-call gas cap; 0: none beyond the block gas limit and the fork's transaction gas cap. */
  maxCallGas: number;
  /** The simulation's id (a UUID); one is made when omitted. */
  id?: string;
  /** Upstream reads this simulation may make (SIM_MAX_UPSTREAM_READS); none: unbounded. */
  budget?: ReadBudget;
}

/** What a simulation did besides its answer (for logs and benchmarks). */
export interface SimulationStats {
  /** Runs of the bundle (the first, and one per batch of misses whose assumptions were wrong). */
  rounds: number;
  /** Upstream batches for misses (the block header and the prefetch come on top). */
  fetches: number;
  /** Calls run in all (a resumed run runs only the calls from the first one that assumed wrong). */
  callRuns: number;
  rules: string;
}

class DeadlineExceeded extends Error {}

const hexOf = (n: bigint) => `0x${n.toString(16)}`;
const addr = (a: string) => createAddressFromString(a);

/** EIP-55 forms (a keccak each), of the addresses answers name again and again. */
const checksums = new LRUCache<string, string>({ max: 50_000 });
function checksum(address: string): string {
  let out = checksums.get(address);
  if (out === undefined) checksums.set(address, (out = toChecksumAddress(address)));
  return out;
}

/** What bundles of the same shape read, by shape: a cold block then needs one batch, not a round per level. */
const remembered = new LRUCache<string, string[]>({ max: 10_000 });

/** The shape of a bundle: chain, and each call's sender, target and selector. */
function shapeOf(chainId: number, request: SimulateRequest): string {
  return `${chainId}|${request.calls.map((c) => `${c.from}>${c.to ?? 'create'}:${c.data.slice(0, 10)}`).join('|')}`;
}

/**
 * Keys worth fetching before any run: each call's sender and target, and every account whose
 * address appears as an ABI word in a call's data (a token, a pool, a recipient: what the call
 * will most likely touch).
 */
function staticKeys(request: SimulateRequest): string[] {
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
 * Runs a bundle on one chain's state at one block: calls in order on one shared state, each as a
 * transaction with gas price 0 (no fee is charged; the sender's nonce increments), with the
 * environment `eth_call` uses at that block.
 *
 * The run reads only what is known (see {@link BundleReads}); what it had to assume is fetched
 * in one batch after it, and the run resumes from the first call that assumed wrong, on the
 * state the calls before it left (kept, layer by layer). A bundle whose state is cached runs
 * once and never waits; a cold one usually needs one batch.
 */
export async function simulateBundle(
  chain: ChainSource,
  request: SimulateRequest,
  options: SimulateOptions,
  stats?: SimulationStats,
): Promise<SimulationResult> {
  await Promise.all([installJumpAnalysisCache(), installFastInterpreter()]);
  const started = performance.now();
  const id = options.id ?? randomUUID();
  const shape = shapeOf(chain.config.chainId, request);
  const known = remembered.get(shape);

  // The block, and (with the block named) what this shape read last time in the same round
  // trip; an unknown shape gets its calls' senders, targets and named addresses, and, where the
  // upstream has it, its access lists (fetched with the first misses).
  let block: BlockEnv;
  let reads: BundleReads;
  const extra: string[] = [];
  if (request.blockNumber !== null) {
    reads = new BundleReads(chain, request.blockNumber, options.budget);
    const accessLists =
      !known && chain.hasAccessLists ? chain.accessListKeys(request.blockNumber, request.calls, options.budget).catch(() => []) : Promise.resolve([]);
    [block] = await Promise.all([
      chain.block(request.blockNumber, options.budget),
      reads.prefetch(known ?? staticKeys(request)),
      accessLists.then((keys) => extra.push(...keys)),
    ]);
  } else {
    block = await chain.block(null, options.budget);
    reads = new BundleReads(chain, block.number, options.budget);
    extra.push(...(known ?? staticKeys(request)));
  }

  const rules = rulesFor(chain.config, block);
  const gasCap = validateCalls(request.calls, rules, block, options.maxCallGas);
  const simBlock = blockFor(block, rules);
  const state = new ForkedStateManager(reads);
  const vm = await acquireVm(rules);
  const context: SimContext = { tracker: new TransferTracker(), deadline: options.deadline, jumps: 0, reads };
  bind(vm, state, context);

  const out: SimulatedCall[] = [];
  /** State depth before each call (before its own overrides). */
  const marks: number[] = [];
  let from = 0;
  let rounds = 0;
  let callRuns = 0;
  try {
    for (;;) {
      checkDeadline(options.deadline);
      rounds++;
      reads.beginRound();
      if (from === 0) {
        state.truncate(0);
        state.pushLayer();
        reads.call = 0;
        await applyOverrides(state, request.overrides);
      } else {
        state.truncate(marks[from]!);
      }
      out.length = from;
      // A call the rules refuse (nonce, funds) may only look refused because of an assumption.
      let refused: SimulationError | null = null;
      for (let i = from; i < request.calls.length; i++) {
        reads.call = i;
        marks[i] = state.depth;
        callRuns++;
        try {
          out[i] = await runCall(vm, state, reads, simBlock, request.calls[i]!, i, gasCap, context);
        } catch (err) {
          if (err instanceof SimulationError && err.code === SimulationErrorCode.Rule) {
            refused = err;
            break;
          }
          throw err;
        }
      }
      if (reads.missCount === 0) {
        if (refused) throw refused;
        break;
      }
      checkDeadline(options.deadline);
      const wrong = await reads.fetchMisses(extra.splice(0));
      if (wrong === -1) {
        if (refused) throw refused;
        break;
      }
      from = wrong;
    }
  } catch (err) {
    if (err instanceof DeadlineExceeded) throw timeout();
    // A call the rules refused left the VM clean (refused before its transaction, or rolled back
    // by runTx); any other error may have left it mid-transaction: it is dropped.
    if (err instanceof SimulationError && err.code === SimulationErrorCode.Rule) releaseVm(rules, vm);
    throw err;
  }
  releaseVm(rules, vm);
  remembered.set(shape, [...reads.touched]);
  if (stats) Object.assign(stats, { rounds, fetches: reads.fetches, callRuns, rules: rules.label });
  return {
    id,
    chainId: chain.config.chainId,
    blockNumber: hexOf(block.number),
    processTime: Math.round(performance.now() - started),
    calls: out,
  };
}

/**
 * The per-call gas cap (the block gas limit, the fork's transaction gas cap, SIM_MAX_CALL_GAS),
 * and refuses what a node would refuse before running anything: a call's gas above it, init
 * code above EIP-3860's limit.
 */
function validateCalls(calls: SimulationCall[], rules: ChainRules, block: BlockEnv, maxCallGas: number): bigint {
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

async function runCall(
  vm: VM,
  state: ForkedStateManager,
  reads: BundleReads,
  block: Block,
  call: SimulationCall,
  index: number,
  gasCap: bigint,
  context: SimContext,
): Promise<SimulatedCall> {
  if (call.overrides) {
    state.pushLayer();
    await applyOverrides(state, call.overrides);
  }
  const from = addr(call.from);
  const nonce = (await state.getAccount(from))?.nonce ?? 0n;
  if (call.nonce !== undefined && BigInt(call.nonce) !== nonce) {
    throw new SimulationError(SimulationErrorCode.Rule, `Nonce mismatch. Expected ${nonce}, got ${call.nonce} on call #${index}`);
  }
  state.pushLayer();
  let tx;
  try {
    tx = createLegacyTx(
      {
        nonce,
        gasPrice: 0n,
        gasLimit: call.gas ?? gasCap,
        to: (call.to ?? undefined) as `0x${string}` | undefined,
        value: call.value ?? 0n,
        data: hexToBytes(call.data as `0x${string}`),
      },
      { common: vm.common, freeze: false, params: {} },
    );
  } catch (err) {
    throw new SimulationError(SimulationErrorCode.Rule, `Call #${index} cannot run: ${cleanMessage((err as Error).message)}`);
  }
  // Unsigned: the sender is whoever the call says it is.
  tx.getSenderAddress = () => from;
  context.tracker.reset();
  let result: RunTxResult;
  try {
    result = await runTx(vm, { tx, block, skipBlockGasLimitValidation: true, skipHardForkValidation: true });
  } catch (err) {
    if (err instanceof DeadlineExceeded || err instanceof SimulationError) throw err;
    throw new SimulationError(SimulationErrorCode.Rule, `Call #${index} cannot run: ${cleanMessage((err as Error).message)}`);
  }
  checkDeadline(context.deadline);
  const failed = result.execResult.exceptionError;
  const returnData = bytesToHex(result.execResult.returnValue);
  const out: SimulatedCall = {
    logs: result.receipt.logs.map(([address, topics, data]) => ({
      address: checksum(bytesToHex(address)),
      topics: topics.map((t) => bytesToHex(t)),
      data: bytesToHex(data),
    })),
    gasUsed: hexOf(result.totalGasSpent),
    result: returnData === '0x' ? '' : returnData,
    status: failed ? 0 : 1,
    internalTransfers: failed ? [] : context.tracker.transfers.map((t) => ({ from: checksum(t.from), to: checksum(t.to), amount: t.amount })),
    updated: {},
  };
  if (failed) {
    out.error = callError(failed.error, returnData);
    // A precompile that fails ends its frame like an exceptional halt, whatever ethereumjs names it.
    if (call.to && vm.evm.precompiles.get(call.to.slice(2)) !== undefined) out.error.type = 'precompile_error';
  }
  if (call.to === null && !failed && result.createdAddress) out.addressCreated = checksum(result.createdAddress.toString());
  out.updated = stateUpdate(state.changesOfTop((account) => reads.slotsReadOf(account)));
  return out;
}

/** A call's changes in the overrides' shape (what a client sends back as overrides to continue from there). */
function stateUpdate(changes: AccountChange[]): StateUpdate {
  const accounts: NonNullable<StateUpdate['accounts']> = {};
  const contractCodes: NonNullable<StateUpdate['contractCodes']> = {};
  const storage: NonNullable<StateUpdate['storage']> = {};
  for (const c of changes.sort((a, b) => (a.address < b.address ? -1 : 1))) {
    const address = checksum(c.address);
    const fields: { nonce?: number; balance?: string } = {};
    if (c.before.nonce !== c.after.nonce) fields.nonce = Number(c.after.nonce);
    if (c.before.balance !== c.after.balance) fields.balance = hexOf(c.after.balance);
    if (fields.nonce !== undefined || fields.balance !== undefined) accounts[address] = fields;
    if (!sameBytes(c.before.code, c.after.code)) contractCodes[address] = bytesToHex(c.after.code);
    if (c.storage.size > 0) {
      const slots: Record<string, string> = {};
      for (const slot of [...c.storage.keys()].sort()) slots[slot] = word32(c.storage.get(slot)![1]);
      storage[address] = slots;
    }
  }
  const update: StateUpdate = {};
  if (Object.keys(accounts).length) update.accounts = accounts;
  if (Object.keys(contractCodes).length) update.contractCodes = contractCodes;
  if (Object.keys(storage).length) update.storage = storage;
  return update;
}

function word32(value: Uint8Array): string {
  return `0x${Buffer.from(value).toString('hex').padStart(64, '0')}`;
}

async function applyOverrides(state: ForkedStateManager, overrides: SimulationOverrides | undefined): Promise<void> {
  if (!overrides) return;
  for (const [address, fields] of Object.entries(overrides.accounts ?? {})) {
    const a = addr(address.toLowerCase());
    const account = (await state.getAccount(a)) ?? new Account();
    if (fields.nonce !== undefined) account.nonce = BigInt(fields.nonce);
    if (fields.balance !== undefined) account.balance = fields.balance;
    await state.putAccount(a, account);
  }
  for (const [address, code] of Object.entries(overrides.contractCodes ?? {})) {
    await state.putCode(addr(address.toLowerCase()), hexToBytes(code as `0x${string}`));
  }
  for (const [address, slots] of Object.entries(overrides.storage ?? {})) {
    const a = addr(address.toLowerCase());
    // Writing to an account that does not exist yet makes it exist (as a node's override does).
    if ((await state.getAccount(a)) === undefined) await state.putAccount(a, new Account());
    for (const [slot, value] of Object.entries(slots)) {
      const key = hexToBytes(`0x${slot.slice(2).toLowerCase().padStart(64, '0')}`);
      await state.putStorage(a, key, stripWord(value));
    }
  }
}

const blocks = new LRUCache<string, Block>({ max: 64 });

/**
 * The block environment of `eth_call` at that block (one object per block and rules, shared):
 * base fee 0 so gas price 0 is accepted. Where the header carries a difficulty (BSC, Polygon)
 * DIFFICULTY/PREVRANDAO reads it, as geth-based clients do; else PREVRANDAO reads the mix hash.
 */
function blockFor(env: BlockEnv, rules: ChainRules): Block {
  const key = `${rules.key}:${env.number}:${env.hash}`;
  let block = blocks.get(key);
  if (block) return block;
  const common = rules.common;
  const london = common.isActivatedEIP(1559);
  const cancun = common.isActivatedEIP(4844);
  const merged = common.isActivatedEIP(4399);
  const randao = merged && env.difficulty !== 0n ? `0x${env.difficulty.toString(16).padStart(64, '0')}` : env.mixHash;
  block = createBlock(
    {
      header: {
        number: env.number,
        timestamp: env.timestamp,
        gasLimit: env.gasLimit,
        coinbase: env.coinbase as `0x${string}`,
        difficulty: merged ? 0n : env.difficulty,
        mixHash: randao as `0x${string}`,
        ...(london ? { baseFeePerGas: 0n } : {}),
        ...(cancun
          ? {
              excessBlobGas: env.excessBlobGas ?? 0n,
              blobGasUsed: 0n,
              parentBeaconBlockRoot: (env.parentBeaconBlockRoot ?? `0x${'0'.repeat(64)}`) as `0x${string}`,
            }
          : {}),
      },
    },
    { common, skipConsensusFormatValidation: true, params: {} },
  );
  blocks.set(key, block);
  return block;
}

// ---------------------------------------------------------------------------------------------
// VMs: one pool per rules, reused across simulations

/** What the instrumented opcodes and the event handlers need of the simulation a VM runs now. */
interface SimContext {
  tracker: TransferTracker;
  deadline: number;
  jumps: number;
  reads: BundleReads;
}
const SIM = Symbol('simulation');
type WithContext = { [SIM]: SimContext };
const contextOf = (runState: RunState) => (runState.interpreter as unknown as { _evm: WithContext })._evm[SIM];

const pools = new Map<string, VM[]>();
/** Idle VMs kept per rules (more are made under load and dropped when returned beyond this). */
const POOL_MAX = 32;

async function acquireVm(rules: ChainRules): Promise<VM> {
  return pools.get(rules.key)?.pop() ?? createVmFor(rules);
}

function releaseVm(rules: ChainRules, vm: VM): void {
  let pool = pools.get(rules.key);
  if (!pool) pools.set(rules.key, (pool = []));
  if (pool.length >= POOL_MAX) return;
  // An idle VM keeps nothing of the simulation it ran.
  bind(vm, IDLE_STATE, IDLE_CONTEXT);
  pool.push(vm);
}

/** Points a VM at this simulation's state and context. */
function bind(vm: VM, state: ForkedStateManager, context: SimContext): void {
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
  for (const code of [0x51, 0x52, 0x56, 0x57]) opcodeMap[code] = { ...opcodeMap[code]!, opcodeInfo: { ...opcodeMap[code]!.opcodeInfo, isAsync: false } };
  // ethereumjs keeps a removed precompile's address in its map (and would warm it): drop it.
  for (const [address, run] of vm.evm.precompiles) if (run === undefined) vm.evm.precompiles.delete(address);
  const context = () => (vm.evm as unknown as WithContext)[SIM];
  vm.evm.events!.on('beforeMessage', (m: Message) => context().tracker.beforeMessage(m));
  vm.evm.events!.on('afterMessage', (r: EVMResult) => context().tracker.afterMessage(r));
  return vm;
}

const instrumented = new Map<string, CustomOpcode[]>();

/**
 * SELFDESTRUCT reports its transfer; JUMP/JUMPI check the deadline now and then, so an endless
 * loop with a huge gas limit ends by the clock as well as by gas; on Polygon since Chicago,
 * SLOAD and SSTORE take PIP-88's cold prices. One set per rules, shared by every simulation
 * (each finds its own context through its EVM), which is what lets the jump analysis be cached
 * across simulations.
 */
function instrumentedOpcodes(rules: ChainRules): CustomOpcode[] {
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
  // createVmFor, where these and MLOAD/MSTORE are marked synchronous): an await per jump would
  // slow a loop down by half.
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

function checkDeadline(deadline: number): void {
  if (performance.now() > deadline) throw timeout();
}

function timeout(): SimulationError {
  return new SimulationError(SimulationErrorCode.Timeout, 'The simulation ran past its time limit');
}

/** ethereumjs appends block/tx dumps to its messages; keep the first sentence. */
function cleanMessage(message: string): string {
  return message
    .split(' -> ')[0]!
    .replace(/\s*\(.*$/s, '')
    .trim();
}

export type { Address };
