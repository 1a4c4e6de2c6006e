import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { LRUCache } from 'lru-cache';

/**
 * The EVM finds a contract's valid jump destinations by scanning its whole bytecode at every
 * call frame (a Uniswap router: ~1.3 ms a time), and the analysis also holds the opcode
 * table entry of every instruction. Code read from the chain is the same Uint8Array for every
 * simulation (it comes from the shared state cache, and stays the same object across blocks while
 * the code is unchanged), so the analysis is kept per code object and EVM rules (the rules key
 * the simulator sets on each EVM: two rules on the same hardfork may differ in opcodes, CLZ, or in
 * gas functions, PIP-88), and dropped with the code when the cache evicts it; code a run makes
 * finds the analysis of the same bytes made before (byContent).
 *
 * This is sound only because every opcode handler is the same for all simulations of one set of
 * rules: the instrumented opcodes find their simulation through the interpreter's EVM (see
 * simulator.ts), never through a closure.
 */
const require = createRequire(import.meta.url);
const esmInterpreter = pathToFileURL(require.resolve('@ethereumjs/evm').replace(/dist[\\/]cjs[\\/]index\.js$/, 'dist/esm/interpreter.js')).href;

type Analysis = unknown;
/** Set by the simulator on each EVM it makes: the key of its rules. */
export const RULES_KEY = Symbol.for('tradeinfra.simulation.rules');

interface InterpreterLike {
  common: { hardfork(): string };
  _evm: { [RULES_KEY]?: string };
  _getValidJumpDestinations(code: Uint8Array): Analysis;
}

const cache = new WeakMap<Uint8Array, Map<string, Analysis>>();
/**
 * The same analyses by the code's bytes (SHA-256), for code a run makes: init code copied out of
 * memory, a contract just created. It is a new object every time, with the same bytes as the last
 * time (the pair a factory creates on each launch). Bounded by the code's size (an analysis holds
 * about ten bytes per byte of code).
 */
const byContent = new LRUCache<string, { forks: Map<string, Analysis>; size: number }>({ maxSize: 64 * 1024 * 1024, sizeCalculation: (v) => v.size });
let installed = false;

export async function installJumpAnalysisCache(): Promise<void> {
  if (installed) return;
  installed = true;
  const { Interpreter } = (await import(esmInterpreter)) as { Interpreter: { prototype: InterpreterLike } };
  const analyse = Interpreter.prototype._getValidJumpDestinations;
  Interpreter.prototype._getValidJumpDestinations = function (this: InterpreterLike, code: Uint8Array): Analysis {
    const fork = this._evm[RULES_KEY] ?? `hardfork:${this.common.hardfork()}`;
    let byFork = cache.get(code);
    if (!byFork) {
      const key = createHash('sha256').update(code).digest('base64');
      let same = byContent.get(key);
      if (!same) byContent.set(key, (same = { forks: new Map(), size: 16 * code.length + 64 }));
      cache.set(code, (byFork = same.forks));
    }
    const hit = byFork.get(fork);
    if (hit) return hit;
    const result = analyse.call(this, code);
    byFork.set(fork, result);
    return result;
  };
}
