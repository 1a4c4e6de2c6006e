import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

interface Solc {
  version(): string;
  compile(input: string, callbacks: { import: (path: string) => { contents: string } | { error: string } }): string;
}

/**
 * The compiler settings of the executor, pinned: the bytecode depends only on these, the solc
 * version (recorded in the artifact) and the sources. `cancun` is the oldest EVM with transient
 * storage (EIP-1153, used by the reentrancy guard); Ethereum, BSC and Polygon PoS all run it.
 * Many optimizer runs: the contract is deployed once and called for every buy.
 */
export const SOLC_SETTINGS = {
  optimizer: { enabled: true, runs: 10_000 },
  evmVersion: 'cancun',
  viaIR: false,
  metadata: { bytecodeHash: 'ipfs' },
} as const;

export interface CompiledContract {
  abi: unknown[];
  /** Creation code, 0x-prefixed. */
  bytecode: string;
  /** Runtime code, 0x-prefixed (immutables still zero). */
  deployedBytecode: string;
}

export interface Compilation {
  solcVersion: string;
  /** `contracts[sourceName][contractName]`. */
  contracts: Record<string, Record<string, CompiledContract>>;
  /** The complete standard-JSON input, imports included (what a block explorer's verification wants). */
  input: { language: 'Solidity'; sources: Record<string, { content: string }>; settings: Record<string, unknown> };
  /** Warnings about the given sources (not about imported library code). */
  warnings: string[];
}

/**
 * Compiles Solidity sources with the `solc` npm package. Imports (`@openzeppelin/contracts/…`)
 * resolve through node_modules. Throws with solc's messages on any error.
 */
export function compileSolidity(sources: Record<string, string>, settings: Record<string, unknown> = SOLC_SETTINGS): Compilation {
  const solc = require('solc') as Solc;
  const imported: Record<string, { content: string }> = {};
  const findImport = (path: string) => {
    try {
      const content = readFileSync(require.resolve(path), 'utf8');
      imported[path] = { content };
      return { contents: content };
    } catch (err) {
      return { error: `not found: ${path} (${(err as Error).message})` };
    }
  };
  const input = {
    language: 'Solidity' as const,
    sources: Object.fromEntries(Object.entries(sources).map(([name, content]) => [name, { content }])),
    settings: { ...settings, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImport })) as {
    errors?: { severity: string; formattedMessage: string; sourceLocation?: { file: string } }[];
    contracts?: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>>;
  };
  const problems = output.errors ?? [];
  const errors = problems.filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`solc ${solc.version()}:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  const contracts: Compilation['contracts'] = {};
  for (const [source, byName] of Object.entries(output.contracts ?? {})) {
    if (!(source in sources)) continue; // the imports' contracts
    contracts[source] = {};
    for (const [name, c] of Object.entries(byName)) {
      contracts[source][name] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}`, deployedBytecode: `0x${c.evm.deployedBytecode.object}` };
    }
  }
  return {
    solcVersion: solc.version(),
    contracts,
    input: { ...input, sources: { ...input.sources, ...imported } },
    warnings: problems.filter((e) => e.severity !== 'error' && (!e.sourceLocation || e.sourceLocation.file in sources)).map((e) => e.formattedMessage),
  };
}
