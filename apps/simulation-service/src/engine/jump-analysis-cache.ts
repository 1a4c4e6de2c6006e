import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { LRUCache } from 'lru-cache';

/**
 * Keeps the EVM's jump analysis (valid destinations, each instruction's opcode entry) per code
 * object and EVM rules, instead of rescanning the bytecode at every call frame (~1.3 ms for a
 * Uniswap router); dropped with the code when the state cache evicts it. Sound only while opcode
 * handlers are shared per rules (docs/design/simulation-internals.md).
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
