import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Address } from '@ethereumjs/util';
import { keccak256Bytes } from '@tradeinfra/service-kit/plain';

/**
 * Patches ethereumjs 10.1's `Interpreter` to run a step synchronously when all it needs is
 * synchronous, falling back to the original awaited step otherwise: same gas, errors and order,
 * without two or three microtask trips per opcode (docs/design/simulation-internals.md). Process-wide;
 * the `@ethereumjs/*` versions are pinned for it (fast-interpreter.spec.ts checks them).
 */
/** The `@ethereumjs/*` release whose internals this patch copies (package.json pins it exactly). */
export const PATCHED_ETHEREUMJS = '10.1.3';
/** The packages the patch reaches into: the interpreter and gas functions, the Common, the VM's Bloom, util. */
export const PATCHED_PACKAGES = ['@ethereumjs/evm', '@ethereumjs/common', '@ethereumjs/vm', '@ethereumjs/util'] as const;

const require = createRequire(import.meta.url);
const esmRoot = require.resolve('@ethereumjs/evm').replace(/dist[\\/]cjs[\\/]index\.js$/, 'dist/esm/');
const load = (path: string) => import(pathToFileURL(esmRoot + path).href);

type Bigint3 = [bigint, bigint, bigint];
interface RunState {
  stack: { peek(n?: number): bigint[] };
  opCode: number;
  programCounter: number;
  code: Uint8Array;
  gasLeft: bigint;
  validJumps: Uint8Array;
  cachedPushes: unknown;
  shouldDoJumpAnalysis: boolean;
  env: { eof?: unknown; accessWitness?: { commit(): void; revert(): void } };
  interpreter: { getReturnDataSize(): bigint; isStatic(): boolean };
  eip8037BurnLeftoverAfterCreateHaltOntoAlive?: boolean;
}
interface Common {
  param(name: string): bigint;
  isActivatedEIP(eip: number): boolean;
}
type GasFn = (runState: RunState, gas: bigint, common: Common) => bigint;
interface OpEntry {
  opcodeInfo: { isAsync: boolean; dynamicGas: boolean; isInvalid: boolean; feeBigInt: bigint; code: number; name: string };
  opHandler: (runState: RunState, common: Common) => unknown;
  gasHandler?: unknown;
}
interface InterpreterLike {
  common: Common;
  profilerOpts?: { enabled?: boolean };
  _runState: RunState;
  _env: { isCreate?: boolean; depth: number };
  _evm: { DEBUG: boolean; events: { listenerCount(name: string): number } };
  _result: unknown;
  lookupOpInfo(op: number): OpEntry;
  useGas(amount: bigint, context?: unknown): void;
  _getValidJumpDestinations(code: Uint8Array): { jumps: Uint8Array; pushes: unknown; opcodesCached: OpEntry[] };
  run(code: Uint8Array, opts?: { pc?: number }): Promise<{ runState: RunState; exceptionError?: unknown }>;
  runStep(op?: OpEntry): Promise<void> | undefined;
}

/** A contract creation's message, as EVM._generateAddress reads it (salt: CREATE2). */
interface CreateMessage {
  caller: { bytes: Uint8Array };
  salt?: Uint8Array;
  code?: unknown;
}

/** EIP-1014: keccak256(0xff ‖ deployer ‖ salt ‖ keccak256(initCode))[12:]. */
export function create2Address(deployer: Uint8Array, salt: Uint8Array, initCode: Uint8Array): Uint8Array {
  const preimage = new Uint8Array(85);
  preimage[0] = 0xff;
  preimage.set(deployer, 1);
  preimage.set(salt, 21);
  preimage.set(keccak256Bytes(initCode), 53);
  return keccak256Bytes(preimage).subarray(12);
}

let installed = false;

export async function installFastInterpreter(): Promise<void> {
  if (installed) return;
  installed = true;
  const [
    { Interpreter },
    { EVMError, EVMErrorTypeString },
    util,
    { consumeEip7928PostTargetCallOog },
    { getOpcodesForHF },
    { FORMAT },
    { Common, Mainnet, Hardfork },
    { paramsEVM },
  ] = await Promise.all([
    load('interpreter.js'),
    load('errors.js'),
    load('opcodes/util.js'),
    load('opcodes/EIP7928.js'),
    load('opcodes/codes.js'),
    load('eof/constants.js'),
    import('@ethereumjs/common'),
    import('@ethereumjs/evm'),
  ]);
  // A simulation never reads a receipt's logs bloom: runTx would hash every log's address and
  // topics into one (keccak, per log) for nothing.
  const { Bloom } = await import('@ethereumjs/vm');
  Bloom.prototype.add = function () {};
  // A CREATE2 address hashes the whole init code (a factory's pair: ~5 KB, twice per creation),
  // with ethereumjs' JavaScript Keccak; the native one is ten times faster.
  const { EVM } = (await load('evm.js')) as { EVM: { prototype: { _generateAddress(message: CreateMessage): Promise<unknown> } } };
  const generateAddress = EVM.prototype._generateAddress;
  EVM.prototype._generateAddress = function (message: CreateMessage) {
    const { salt, caller, code } = message;
    if (!(salt instanceof Uint8Array) || salt.length !== 32 || !(code instanceof Uint8Array)) return generateAddress.call(this, message);
    return Promise.resolve(new Address(create2Address(caller.bytes, salt, code)));
  };
  const { subMemUsage, divCeil, trap } = util as {
    subMemUsage(runState: RunState, offset: bigint, length: bigint, common: Common): bigint;
    divCeil(a: bigint, b: bigint): bigint;
    trap(err: string): never;
  };
  const messages = EVMError.errorMessages as Record<string, string>;

  // Synchronous copies of the pure gas functions, keyed by the stock function they stand for
  // (so an EVM whose table holds another function for that opcode keeps its own).
  const stock = getOpcodesForHF(new Common({ chain: Mainnet, hardfork: Hardfork.Osaka, params: paramsEVM })).dynamicGasHandlers as Map<number, unknown>;
  const memory = (offsetAt: number, lengthAt: number | bigint) => (runState: RunState, gas: bigint, common: Common) => {
    const args = runState.stack.peek(Math.max(offsetAt, typeof lengthAt === 'number' ? lengthAt : 0) + 1);
    const length = typeof lengthAt === 'number' ? args[lengthAt]! : lengthAt;
    return gas + subMemUsage(runState, args[offsetAt]!, length, common);
  };
  const copy = (runState: RunState, gas: bigint, common: Common) => {
    const [memOffset, , dataLength] = runState.stack.peek(3) as Bigint3;
    gas += subMemUsage(runState, memOffset, dataLength, common);
    if (dataLength !== 0n) gas += common.param('copyGas') * divCeil(dataLength, 32n);
    return gas;
  };
  const sync = new Map<unknown, GasFn>([
    [
      stock.get(0x0a), // EXP
      (runState, gas, common) => {
        const exponent = runState.stack.peek(2)[1]!;
        if (exponent === 0n) return gas;
        let byteLength = exponent.toString(2).length / 8;
        if (byteLength > Math.trunc(byteLength)) byteLength = Math.trunc(byteLength) + 1;
        if (byteLength < 1 || byteLength > 32) trap(messages.OUT_OF_RANGE!);
        return gas + BigInt(byteLength) * common.param('expByteGas');
      },
    ],
    [
      stock.get(0x20), // KECCAK256
      (runState, gas, common) => {
        const [offset, length] = runState.stack.peek(2) as [bigint, bigint];
        gas += subMemUsage(runState, offset, length, common);
        return gas + common.param('keccak256WordGas') * divCeil(length, 32n);
      },
    ],
    [stock.get(0x37), copy], // CALLDATACOPY
    [
      stock.get(0x3e), // RETURNDATACOPY
      (runState, gas, common) => {
        const [, returnDataOffset, dataLength] = runState.stack.peek(3) as Bigint3;
        if (returnDataOffset + dataLength > runState.interpreter.getReturnDataSize() && runState.env.eof === undefined) trap(messages.OUT_OF_GAS!);
        return copy(runState, gas, common);
      },
    ],
    [stock.get(0x51), memory(0, 32n)], // MLOAD
    [stock.get(0x52), memory(0, 32n)], // MSTORE
    [stock.get(0x53), memory(0, 1n)], // MSTORE8
    [
      stock.get(0x5e), // MCOPY
      (runState, gas, common) => {
        const [dst, src, length] = runState.stack.peek(3) as Bigint3;
        gas += 3n * ((length + 31n) / 32n);
        gas += subMemUsage(runState, src, length, common);
        return gas + subMemUsage(runState, dst, length, common);
      },
    ],
    [
      stock.get(0xa0), // LOG0..LOG4
      (runState, gas, common) => {
        if (runState.interpreter.isStatic()) trap(messages.STATIC_STATE_CHANGE!);
        const [memOffset, memLength] = runState.stack.peek(2) as [bigint, bigint];
        const topics = runState.opCode - 0xa0;
        if (topics < 0 || topics > 4) trap(messages.OUT_OF_RANGE!);
        gas += subMemUsage(runState, memOffset, memLength, common);
        return gas + common.param('logTopicGas') * BigInt(topics) + memLength * common.param('logDataGas');
      },
    ],
    [stock.get(0xf3), memory(0, 1)], // RETURN
    [stock.get(0xfd), memory(0, 1)], // REVERT
  ]);
  sync.delete(undefined);

  const proto = Interpreter.prototype as InterpreterLike;
  const slowStep = proto.runStep;
  const slowRun = proto.run;
  const FAST = Symbol('fast');
  type Fast = InterpreterLike & { [FAST]?: boolean };

  proto.runStep = function (this: Fast, opcodeObj?: OpEntry) {
    const opEntry = opcodeObj ?? this.lookupOpInfo(this._runState.opCode);
    const opInfo = opEntry.opcodeInfo;
    if (!this[FAST] || opInfo.isAsync) return slowStep.call(this, opcodeObj);
    let gas = opInfo.feeBigInt;
    if (opInfo.dynamicGas) {
      const price = sync.get(opEntry.gasHandler);
      if (price === undefined) return slowStep.call(this, opcodeObj);
      gas = price(this._runState, gas, this.common);
    }
    if (opInfo.isInvalid) throw new EVMError(messages.INVALID_OPCODE);
    this.useGas(gas, opInfo);
    this._runState.programCounter++;
    consumeEip7928PostTargetCallOog(this._runState);
    opEntry.opHandler.apply(null, [this._runState, this.common]);
    this._runState.env.accessWitness?.commit();
    return undefined;
  };

  proto.run = async function (this: Fast, code: Uint8Array, opts: { pc?: number } = {}) {
    // EOF, profiling, tracing listeners, stateless EIPs: the original loop.
    if (
      (this.common.isActivatedEIP(3540) && code[0] === FORMAT) ||
      this.profilerOpts?.enabled === true ||
      this._evm.DEBUG ||
      this._evm.events.listenerCount('step') > 0 ||
      this.common.isActivatedEIP(6800) ||
      this.common.isActivatedEIP(7864)
    ) {
      return slowRun.call(this, code, opts);
    }
    this[FAST] = true;
    const runState = this._runState;
    runState.code = code;
    runState.programCounter = opts.pc ?? runState.programCounter;
    const pc = runState.programCounter;
    if (pc !== 0 && (pc < 0 || pc >= code.length)) throw new Error('Internal error: program counter not in range');
    let err: unknown;
    let cachedOpcodes: OpEntry[] | undefined;
    let doJumpAnalysis = true;
    while (runState.programCounter < code.length) {
      const programCounter = runState.programCounter;
      let opCode: number;
      let opCodeObj: OpEntry | undefined;
      if (doJumpAnalysis) {
        opCode = code[programCounter]!;
        if (opCode === 0x56 || opCode === 0x57 || opCode === 0x5e) {
          const { jumps, pushes, opcodesCached } = this._getValidJumpDestinations(code);
          runState.validJumps = jumps;
          runState.cachedPushes = pushes;
          runState.shouldDoJumpAnalysis = false;
          cachedOpcodes = opcodesCached;
          doJumpAnalysis = false;
        }
      } else {
        opCodeObj = cachedOpcodes![programCounter]!;
        opCode = opCodeObj.opcodeInfo.code;
      }
      runState.opCode = opCode;
      try {
        const pending = this.runStep(opCodeObj);
        if (pending !== undefined) await pending;
      } catch (e) {
        runState.env.accessWitness?.revert();
        if (!(typeof e === 'object' && e !== null && (e as { errorType?: string }).errorType === EVMErrorTypeString)) throw e;
        if ((e as { error: string }).error !== messages.STOP) err = e;
        break;
      }
    }
    if (err === undefined && runState.eip8037BurnLeftoverAfterCreateHaltOntoAlive === true && runState.gasLeft > 0n) {
      runState.gasLeft = 0n;
      err = new EVMError(messages.OUT_OF_GAS);
    }
    return { runState, exceptionError: err };
  } as InterpreterLike['run'];
}
