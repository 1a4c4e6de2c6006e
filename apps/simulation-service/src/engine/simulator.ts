import { createBlock, type Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { getOpcodesForHF, paramsEVM, type EVMOpts, type EVMResult, type Message } from '@ethereumjs/evm';

type CustomOpcode = NonNullable<EVMOpts['customOpcodes']>[number];
type RunState = Parameters<NonNullable<ReturnType<ReturnType<typeof getOpcodesForHF>['handlers']['get']>>>[0];
import { createLegacyTx } from '@ethereumjs/tx';
import { Account, bytesToHex, createAddressFromString, hexToBytes, toChecksumAddress, type Address } from '@ethereumjs/util';
import { createVM, runTx, type RunTxResult, type VM } from '@ethereumjs/vm';
import type { SimulateRequest, SimulatedCall, SimulationCall, SimulationOverrides, SimulationResult } from '@tradeinfra/contracts';
import { LRUCache } from 'lru-cache';
import type { BlockEnv, ChainState } from '../chain/chain-state.js';
import { stripWord } from '../chain/chain-state.js';
import { SimulationError, SimulationErrorCode, invalid } from '../simulation/simulation.errors.js';
import { ForkedStateManager } from './forked-state-manager.js';
import { commonFor, hardforkFor } from './hardforks.js';
import { installJumpAnalysisCache } from './jump-analysis-cache.js';
import { decodeRevertReason } from './revert-reason.js';
import { TransferTracker } from './transfer-tracker.js';

export interface SimulateOptions {
  /** Absolute deadline (performance.now() ms) for the whole simulation. */
  deadline: number;
  /** Per-call gas cap; 0: the block gas limit. */
  maxCallGas: number;
}

class DeadlineExceeded extends Error {}

const hexOf = (n: bigint) => `0x${n.toString(16)}`;
const addr = (a: string) => createAddressFromString(a);

/**
 * Runs a bundle on one chain's state at one block: calls in order on one shared state, each
 * as a transaction with gas price 0 (no fee is charged; the sender's nonce increments),
 * with the environment `eth_call` uses at that block.
 */
/** Optimistic runs before falling back to waiting on each miss (each round is one round trip). */
const OPTIMISTIC_ROUNDS = 12;

/** What bundles of the same shape read, by shape: a cold block then needs one batch, not a round per level. */
const remembered = new LRUCache<string, string[]>({ max: 10_000 });

/** The shape of a bundle: chain, and each call's sender, target and selector. */
function shapeOf(chainId: number, request: SimulateRequest): string {
  return `${chainId}|${request.calls.map((c) => `${c.from}>${c.to ?? 'create'}:${c.data.slice(0, 10)}`).join('|')}`;
}

export async function simulateBundle(chain: ChainState, request: SimulateRequest, options: SimulateOptions): Promise<SimulationResult> {
  await installJumpAnalysisCache();
  const started = performance.now();
  const shape = shapeOf(chain.config.chainId, request);
  // Warm the cache with what this shape of bundle read before (and with the calls' access
  // lists); with an explicit block, in the same round trip as the header.
  const warm = (block: bigint) =>
    Promise.all([chain.prefetch(block, request.calls), chain.fetchMisses(block, remembered.get(shape) ?? []).catch(() => undefined)]);
  const [block] = await Promise.all([chain.block(request.blockNumber), request.blockNumber !== null ? warm(request.blockNumber) : null]);
  if (request.blockNumber === null) await warm(block.number);

  // Run the bundle on what the cache holds; every read it lacks is recorded instead of awaited.
  // No miss: the run is exact and is the answer (the warm path). Misses: fetch them all in one
  // round trip and run again. Dependent reads (code of a contract found in storage, ...) take
  // one round each; past OPTIMISTIC_ROUNDS the run waits on each miss instead.
  for (let round = 0; ; round++) {
    checkDeadline(options.deadline);
    const misses = round < OPTIMISTIC_ROUNDS ? new Set<string>() : null;
    let calls: SimulatedCall[] | undefined;
    const touched = new Set<string>();
    try {
      calls = await runBundle(chain, block, request, options, misses, touched);
    } catch (err) {
      if (!misses || misses.size === 0 || err instanceof SimulationError && err.code === SimulationErrorCode.Timeout) throw err;
    }
    if (calls && (!misses || misses.size === 0)) {
      remembered.set(shape, [...touched]);
      return {
        chainId: chain.config.chainId,
        blockNumber: hexOf(block.number),
        processTime: Math.round(performance.now() - started),
        calls,
      };
    }
    await chain.fetchMisses(block.number, misses!);
  }
}

async function runBundle(
  chain: ChainState,
  block: BlockEnv,
  request: SimulateRequest,
  options: SimulateOptions,
  misses: Set<string> | null,
  touched: Set<string>,
): Promise<SimulatedCall[]> {
  const common = commonFor(chain.config, hardforkFor(chain.config, block)).copy();
  const state = new ForkedStateManager(chain, block.number, misses, touched);
  await applyOverrides(state, request.overrides);

  const tracker = new TransferTracker();
  const vm = await createVM({
    common,
    stateManager: state,
    blockchain: {
      getBlock: async (n: number) => {
        const hash = await chain.blockHash(BigInt(n));
        return { hash: () => hash };
      },
      putBlock: async () => {},
      shallowCopy() {
        return this;
      },
    },
    evmOpts: { customOpcodes: instrumentedOpcodes(common) },
  });
  (vm.evm as unknown as { [SIM]: SimContext })[SIM] = { tracker, deadline: options.deadline, jumps: 0 };
  vm.evm.events!.on('beforeMessage', (m: Message) => tracker.beforeMessage(m));
  vm.evm.events!.on('afterMessage', (r: EVMResult) => tracker.afterMessage(r));
  const simBlock = buildBlock(block, common);
  const gasCap = options.maxCallGas > 0 && BigInt(options.maxCallGas) < block.gasLimit ? BigInt(options.maxCallGas) : block.gasLimit;

  const calls: SimulatedCall[] = [];
  for (const [index, call] of request.calls.entries()) {
    tracker.reset();
    calls.push(await runCall(vm, simBlock, call, index, gasCap, tracker, options.deadline));
  }
  return calls;
}

async function runCall(
  vm: VM,
  block: Block,
  call: SimulationCall,
  index: number,
  gasCap: bigint,
  tracker: TransferTracker,
  deadline: number,
): Promise<SimulatedCall> {
  const from = addr(call.from);
  const nonce = (await vm.stateManager.getAccount(from))?.nonce ?? 0n;
  if (call.nonce !== undefined && BigInt(call.nonce) !== nonce) {
    throw new SimulationError(SimulationErrorCode.Rule, `Nonce mismatch. Expected ${nonce}, got ${call.nonce} on call #${index}`);
  }
  if (call.gas !== undefined && call.gas > gasCap) {
    throw invalid(`calls.${index}.gas`, `must be at most ${gasCap} (the per-call gas cap)`);
  }
  const tx = createLegacyTx(
    {
      nonce,
      gasPrice: 0n,
      gasLimit: call.gas ?? gasCap,
      to: (call.to ?? undefined) as `0x${string}` | undefined,
      value: call.value ?? 0n,
      data: hexToBytes(call.data as `0x${string}`),
    },
    { common: vm.common, freeze: false },
  );
  // Unsigned: the sender is whoever the call says it is.
  tx.getSenderAddress = () => from;
  let result: RunTxResult;
  try {
    result = await runTx(vm, { tx, block, skipBlockGasLimitValidation: true, skipHardForkValidation: true });
  } catch (err) {
    if (err instanceof DeadlineExceeded) throw timeout();
    if (err instanceof SimulationError) throw err;
    throw new SimulationError(SimulationErrorCode.Rule, `Call #${index} cannot run: ${cleanMessage((err as Error).message)}`);
  }
  checkDeadline(deadline);
  const failed = result.execResult.exceptionError;
  const returnData = bytesToHex(result.execResult.returnValue);
  const out: SimulatedCall = {
    logs: result.receipt.logs.map(([address, topics, data]) => ({
      address: toChecksumAddress(bytesToHex(address)),
      topics: topics.map((t) => bytesToHex(t)),
      data: bytesToHex(data),
    })),
    gasUsed: hexOf(result.totalGasSpent),
    result: returnData === '0x' ? '' : returnData,
    status: failed ? 0 : 1,
    internalTransfers: failed
      ? []
      : tracker.transfers.map((t) => ({ from: toChecksumAddress(t.from), to: toChecksumAddress(t.to), amount: t.amount })),
  };
  if (failed) out.error = failed.error === 'revert' ? decodeRevertReason(returnData) : failed.error;
  return out;
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

/** The block environment of `eth_call` at that block; base fee 0 so gas price 0 is accepted. */
function buildBlock(env: BlockEnv, common: Common): Block {
  const london = common.isActivatedEIP(1559);
  const cancun = common.isActivatedEIP(4844);
  return createBlock(
    {
      header: {
        number: env.number,
        timestamp: env.timestamp,
        gasLimit: env.gasLimit,
        coinbase: env.coinbase as `0x${string}`,
        difficulty: common.isActivatedEIP(4399) ? 0n : env.difficulty,
        mixHash: env.mixHash as `0x${string}`,
        ...(london ? { baseFeePerGas: 0n } : {}),
        ...(cancun ? { excessBlobGas: env.excessBlobGas ?? 0n, blobGasUsed: 0n, parentBeaconBlockRoot: (env.parentBeaconBlockRoot ?? `0x${'0'.repeat(64)}`) as `0x${string}` } : {}),
      },
    },
    { common, skipConsensusFormatValidation: true },
  );
}

/** What the instrumented opcodes need of the simulation they run in, found through the EVM. */
interface SimContext {
  tracker: TransferTracker;
  deadline: number;
  jumps: number;
}
const SIM = Symbol('simulation');
const contextOf = (runState: RunState) => (runState.interpreter as unknown as { _evm: { [SIM]: SimContext } })._evm[SIM];

const instrumented = new Map<string, CustomOpcode[]>();

/**
 * SELFDESTRUCT reports its transfer; JUMP/JUMPI check the deadline now and then, so an endless
 * loop with a huge gas limit ends by the clock as well as by gas. Gas and semantics unchanged.
 * One set per hardfork, shared by every simulation (each finds its own context through its
 * EVM), which is what lets the jump analysis be cached across simulations.
 */
function instrumentedOpcodes(common: Common): CustomOpcode[] {
  const cached = instrumented.get(common.hardfork());
  if (cached) return cached;
  common.updateParams(paramsEVM); // what the EVM does on creation; the opcode table needs it now
  const { handlers, dynamicGasHandlers, opcodes } = getOpcodesForHF(common);
  const wrap = (code: number, before: (runState: RunState, sim: SimContext) => void | Promise<void>): CustomOpcode => {
    const original = handlers.get(code)!;
    const info = opcodes.get(code)!;
    return {
      opcode: code,
      opcodeName: info.name,
      baseFee: info.fee,
      gasFunction: dynamicGasHandlers.get(code),
      logicFunction: async (runState: RunState, c: Common) => {
        await before(runState, contextOf(runState));
        return original(runState, c);
      },
    };
  };
  const checkClock = (_: RunState, sim: SimContext) => {
    if (++sim.jumps % 8192 === 0 && performance.now() > sim.deadline) throw new DeadlineExceeded();
  };
  const opcodesForFork = [
    wrap(0x56, checkClock),
    wrap(0x57, checkClock),
    wrap(0xff, async (runState, sim) => {
      const self = runState.interpreter.getAddress();
      const beneficiary = runState.stack.peek(1)[0]!;
      const balance = await runState.interpreter.getExternalBalance(self);
      sim.tracker.selfdestruct(self.toString(), `0x${beneficiary.toString(16).padStart(40, '0')}`, balance);
    }),
  ];
  instrumented.set(common.hardfork(), opcodesForFork);
  return opcodesForFork;
}

function checkDeadline(deadline: number): void {
  if (performance.now() > deadline) throw timeout();
}

function timeout(): SimulationError {
  return new SimulationError(SimulationErrorCode.Timeout, 'The simulation ran past its time limit');
}

/** ethereumjs appends block/tx dumps to its messages; keep the first sentence. */
function cleanMessage(message: string): string {
  return message.split(' -> ')[0]!.replace(/\s*\(.*$/s, '').trim();
}

export type { Address };
