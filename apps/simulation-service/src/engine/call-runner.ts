import type { Block } from '@ethereumjs/block';
import { Account, bytesToHex, createAddressFromString, hexToBytes } from '@ethereumjs/util';
import { createLegacyTx } from '@ethereumjs/tx';
import { runTx, type RunTxResult, type VM } from '@ethereumjs/vm';
import { callGas, type SimulatedCall, type SimulationCall, type SimulationOverrides } from '@tradeinfra/contracts';
import { stripWord } from '../chain/chain-state.js';
import { ChainError } from '../chain/chain.errors.js';
import { SimulationError, SimulationErrorCode } from '../simulation/simulation.errors.js';
import type { BundleReads } from './bundle-reads.js';
import type { ForkedStateManager } from './forked-state-manager.js';
import { callError } from './revert-reason.js';
import { checkDeadline, DeadlineExceeded, type SimContext } from './sim-context.js';
import { checksum, hexOf, stateUpdate } from './state-update.js';

const addr = (a: string) => createAddressFromString(a);

/**
 * Runs one call of a bundle as a transaction with gas price 0 on the state the calls before it
 * left (its overrides, then the transaction, each in a layer of their own), and describes it.
 * Throws a `Rule` SimulationError for what a node would refuse (nonce, funds, intrinsic gas).
 */
export async function runCall(
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
        gasLimit: callGas(call).gas ?? gasCap,
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
    // The run's own errors and the chain layer's are never taken for the call's.
    if (err instanceof DeadlineExceeded || err instanceof SimulationError || err instanceof ChainError) throw err;
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

export async function applyOverrides(state: ForkedStateManager, overrides: SimulationOverrides | undefined): Promise<void> {
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

/** ethereumjs appends block/tx dumps to its messages; keep the first sentence. */
export function cleanMessage(message: string): string {
  return message
    .split(' -> ')[0]!
    .replace(/\s*\(.*$/s, '')
    .trim();
}
