/** One step of a struct-logger trace (debug_traceCall), as much as the access list needs. */
export interface StructLog {
  op: string;
  depth: number;
  /** Stack entries, as hex words (with or without 0x). */
  stack?: string[];
}

export interface AccessListEntry {
  address: string;
  storageKeys: string[];
}

const CALLS = new Set(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL']);
const ADDRESS_OPS = new Set(['BALANCE', 'EXTCODESIZE', 'EXTCODECOPY', 'EXTCODEHASH']);

/**
 * geth's access list of one call, from its struct logs: SLOAD/SSTORE slots under the storage
 * context that ran them, and the targets of BALANCE, EXTCODE*, CALL, CALLCODE, DELEGATECALL and
 * STATICCALL (the sender and precompiles left out).
 */
export function accessListFromStructLogs(tx: { from?: string; to?: string | null }, logs: StructLog[]): { accessList: AccessListEntry[] } {
  const from = String(tx.from ?? '').toLowerCase();
  const entries = new Map<string, Set<string>>();
  const add = (address: string | null, slot: string | null = null) => {
    if (address === null) return;
    if (slot === null && (address === from || BigInt(address) <= 0x11n)) return; // sender, precompiles
    if (!entries.has(address)) entries.set(address, new Set());
    if (slot !== null) entries.get(address)!.add(slot);
  };
  const word = (w: string | undefined) => `0x${String(w).replace(/^0x/, '').padStart(64, '0')}`;
  const address = (w: string | undefined) => `0x${String(w).replace(/^0x/, '').padStart(64, '0').slice(24)}`;
  // context[d - 1]: the account whose storage the code at depth d reads and writes (null: a creation).
  const context: Array<string | null> = [tx.to ? String(tx.to).toLowerCase() : null];
  for (const step of logs) {
    const stack = step.stack ?? [];
    const top = (k: number) => stack[stack.length - 1 - k];
    const here = context[step.depth - 1] ?? null;
    if (step.op === 'SLOAD' || step.op === 'SSTORE') add(here, word(top(0)));
    else if (ADDRESS_OPS.has(step.op)) add(address(top(0)));
    else if (CALLS.has(step.op)) {
      const callee = address(top(1));
      add(callee);
      context[step.depth] = step.op === 'DELEGATECALL' || step.op === 'CALLCODE' ? here : callee;
    } else if (step.op === 'CREATE' || step.op === 'CREATE2') context[step.depth] = null;
  }
  return { accessList: [...entries].map(([a, slots]) => ({ address: a, storageKeys: [...slots] })) };
}
