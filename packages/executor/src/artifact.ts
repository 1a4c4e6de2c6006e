import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Interface, type InterfaceAbi } from 'ethers';
import { toMerkleStruct, toStruct, type BuyIntent, type MerkleBuyIntent } from './intent.js';

export const CONTRACT_NAME = 'IntentExecutor';
export const SOURCE_NAME = 'IntentExecutor.sol';
export const ARTIFACT_FILE = 'IntentExecutor.json';

export interface ExecutorArtifact {
  contractName: string;
  solcVersion: string;
  settings: Record<string, unknown>;
  abi: InterfaceAbi;
  /** Creation code (0x…); append the ABI-encoded `(router, wrappedNative)` to deploy. */
  bytecode: string;
  deployedBytecode: string;
  iface: Interface;
}

let cached: ExecutorArtifact | null = null;

/**
 * The compiled contract, written by this package's build (`dist/IntentExecutor.json`). The path
 * is the same whether this module runs from `src` (tests) or `dist`.
 */
export function executorArtifact(): ExecutorArtifact {
  if (cached) return cached;
  const path = join(import.meta.dirname, '..', 'dist', ARTIFACT_FILE);
  let json: Omit<ExecutorArtifact, 'iface'>;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`${path} is missing or unreadable (${(err as Error).message}): build @tradeinfra/executor first (npm run build)`);
  }
  cached = { ...json, iface: new Interface(json.abi) };
  return cached;
}

/** Creation code plus constructor arguments: the `data` of the deploying transaction. */
export function executorDeployData(router: string, wrappedNative: string): string {
  const { bytecode, iface } = executorArtifact();
  return bytecode + iface.encodeDeploy([router, wrappedNative]).slice(2);
}

/** Calldata of `execute(intent, signature)`. */
export function encodeExecute(intent: BuyIntent, signature: string): string {
  return executorArtifact().iface.encodeFunctionData('execute', [toStruct(intent), signature]);
}

/**
 * Calldata of `executeMerkle(intent, wallet, amountOutMin, signature)`: Merkle's 5-field intent,
 * signed by `wallet`; `amountOutMin` is the sender's own slippage guard (not signed).
 */
export function encodeExecuteMerkle(intent: MerkleBuyIntent, wallet: string, amountOutMin: bigint, signature: string): string {
  return executorArtifact().iface.encodeFunctionData('executeMerkle', [toMerkleStruct(intent), wallet, amountOutMin, signature]);
}

/** Calldata of `cancelMerkle(intent)`: revokes it for the sender. */
export function encodeCancelMerkle(intent: MerkleBuyIntent): string {
  return executorArtifact().iface.encodeFunctionData('cancelMerkle', [toMerkleStruct(intent)]);
}

/** Calldata of `cancel(intent)`: only `intent.wallet` may send it. */
export function encodeCancel(intent: BuyIntent): string {
  return executorArtifact().iface.encodeFunctionData('cancel', [toStruct(intent)]);
}

/** Calldata of `invalidateNonces(wordPos, mask)` (see {@link nonceBit}). */
export function encodeInvalidateNonces(wordPos: bigint, mask: bigint): string {
  return executorArtifact().iface.encodeFunctionData('invalidateNonces', [wordPos, mask]);
}

export interface ExecutorRevert {
  /** The custom error's name (`InsufficientOutput`, `NotLaunchBlock`, …), or `Error` / `Panic`. */
  name: string;
  /** Its arguments by name, bigints as decimal strings (JSON-safe), addresses as returned. */
  args: Record<string, string | boolean>;
}

/**
 * The executor's revert data decoded: a custom error of the contract (with its measured values,
 * e.g. `InsufficientOutput{amountOut, minOut}`), or `Error{message}` / `Panic{code}` bubbled from
 * the router or a token (WETH9 reverts with an empty `Error` when the wallet's allowance or
 * balance is short). Null for empty or unknown data.
 */
export function decodeExecutorRevert(data: string | null | undefined): ExecutorRevert | null {
  if (!data || data === '0x') return null;
  const { iface } = executorArtifact();
  try {
    const parsed = iface.parseError(data);
    if (!parsed) return null;
    const args: ExecutorRevert['args'] = {};
    parsed.fragment.inputs.forEach((input, i) => {
      const v = parsed.args[i] as unknown;
      const name = input.name || (parsed.name === 'Error' ? 'message' : parsed.name === 'Panic' ? 'code' : String(i));
      args[name] = typeof v === 'bigint' ? v.toString() : (v as string | boolean);
    });
    return { name: parsed.name, args };
  } catch {
    return null;
  }
}
