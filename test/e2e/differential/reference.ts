import type { RpcCall } from '@tradeinfra/service-kit';
import { getAddress, getCreateAddress, toBeHex } from 'ethers';
import { JsonRpcError, type JsonRpc } from './node.js';

// ---------------------------------------------------------------------------------------------
// Case shape (what cases.ts produces and both sides run)

export interface CaseOverrides {
  accounts?: Record<string, { nonce?: number; balance?: bigint }>;
  contractCodes?: Record<string, string>;
  /** address → 32-byte slot → 32-byte value. */
  storage?: Record<string, Record<string, string>>;
}

export interface CaseCall {
  from: string;
  /** Omitted: a contract creation with `data` as init code. */
  to?: string;
  data?: string;
  value?: bigint;
  gas?: bigint;
  nonce?: number;
  /** Applied just before this call. */
  overrides?: CaseOverrides;
}

export interface Bundle {
  calls: CaseCall[];
  overrides?: CaseOverrides;
}

/** Gas of a call without its own, in the suites' "explicit gas" run. */
export const DEFAULT_GAS = 10_000_000n;

/** How a case's calls carry gas: each its own (or DEFAULT_GAS), or none (the service's default, the fork's cap). */
export type GasMode = 'explicit' | 'default';

// ---------------------------------------------------------------------------------------------
// Outcome of one call (the fields compared with the simulation)

export interface Log {
  address: string;
  topics: string[];
  data: string;
}

export interface Transfer {
  from: string;
  to: string;
  amount: bigint;
}

/** What a call changed, in the service's `updated` form (checksummed addresses, hex balances, 32-byte words). */
export interface StateDiff {
  accounts?: Record<string, { nonce?: number; balance?: string }>;
  contractCodes?: Record<string, string>;
  storage?: Record<string, Record<string, string>>;
}

export interface CallOutcome {
  status: 0 | 1;
  /** Return data (revert data when it reverted), `0x` when empty. */
  result: string;
  logs: Log[];
  gasUsed: bigint;
  internalTransfers: Transfer[];
  /** A top-level creation that succeeded: the new contract (checksummed). */
  addressCreated?: string;
  /** The node's state after the call's block against the state before it, over every account and slot the call could have changed. */
  updated: StateDiff;
}

// ---------------------------------------------------------------------------------------------
// Call frames from the struct-log trace

/** A transaction of the bundle as sent; `to` is the new contract for a creation. */
interface SentTx {
  hash: string;
  from: string;
  to: string;
  value: bigint;
  create: boolean;
}

interface StructLog {
  depth: number;
  op: string;
  pc: number;
  gas: number;
  stack?: string[];
  error?: unknown;
}

interface Trace {
  failed: boolean;
  gas: number;
  returnValue: string;
  structLogs: StructLog[];
}

/** An address known once its frame returns (the new contract of a CREATE). */
interface Ref {
  address: string | null;
}

type FrameKind = 'ROOT' | 'CALL' | 'CALLCODE' | 'DELEGATECALL' | 'STATICCALL' | 'CREATE' | 'CREATE2' | 'SELFDESTRUCT';

export interface Frame {
  kind: FrameKind;
  /** The account whose balance pays `value` (the caller's context). */
  from: Ref;
  /** Callee / code address / new contract / beneficiary. */
  to: Ref;
  /** The account whose code runs with its own storage and balance in this frame. */
  context: Ref;
  value: bigint;
  /** Executed at least one instruction (code ran). */
  entered: boolean;
  /** The frame returned successfully (the value pushed on the caller's stack was not 0). */
  success: boolean;
  children: Frame[];
  /** Slots SSTORE wrote to in this frame's context (root frame: every frame's, see buildFrames). */
  sstores?: Array<{ context: Ref; slot: string }>;
}

const CALL_OPS: Record<string, FrameKind> = {
  CALL: 'CALL',
  CALLCODE: 'CALLCODE',
  DELEGATECALL: 'DELEGATECALL',
  STATICCALL: 'STATICCALL',
  CREATE: 'CREATE',
  CREATE2: 'CREATE2',
};

const word = (hex: string) => BigInt('0x' + (hex.startsWith('0x') ? hex.slice(2) : hex || '0'));
const addr = (hex: string) => '0x' + (hex.startsWith('0x') ? hex.slice(2) : hex).padStart(64, '0').slice(24).toLowerCase();
const top = (s: StructLog, i = 0): string => {
  const stack = s.stack ?? [];
  if (stack.length <= i) throw new Error(`stack underflow reading ${s.op} at pc ${s.pc}`);
  return stack[stack.length - 1 - i];
};

/**
 * Rebuilds the call tree of a transaction from hardhat's default struct-log trace (hardhat has
 * no callTracer). A frame begins at a call-like opcode; its callee ran if the next step is one
 * level deeper; it ends when the depth comes back, where the caller's stack top is the result
 * (0 = failed; for CREATE the new address).
 */
export function buildFrames(trace: Trace, tx: SentTx, status: 0 | 1): Frame {
  const root: Frame = {
    kind: 'ROOT',
    from: { address: tx.from },
    to: { address: tx.to },
    context: { address: tx.to },
    value: tx.value,
    entered: true,
    success: status === 1,
    children: [],
  };
  const active: Frame[] = [root];
  const sstores: Array<{ context: Ref; slot: string }> = [];
  root.sstores = sstores;
  const logs = trace.structLogs;
  const base = logs.length ? logs[0].depth : 1;
  let pending: Frame | null = null;

  const finish = (frame: Frame, resume: StructLog) => {
    const result = word(top(resume));
    frame.success = result !== 0n;
    if ((frame.kind === 'CREATE' || frame.kind === 'CREATE2') && frame.success) frame.to.address = addr(top(resume));
  };

  for (let i = 0; i < logs.length; i++) {
    const step = logs[i];
    const level = step.depth - base; // 0 = root frame
    if (pending) {
      const callerLevel = active.length - 1;
      if (level === callerLevel + 1) {
        pending.entered = true;
        active.push(pending);
      } else if (level === callerLevel) {
        finish(pending, step); // no code ran: precompile, account without code, or refused (balance, depth)
      } else {
        pending.success = false; // the call-like opcode itself failed; its caller is unwinding
      }
      pending = null;
    }
    // frames that ended before this step
    while (active.length - 1 > level) {
      const ended = active.pop()!;
      if (active.length - 1 === level) finish(ended, step);
      else throw new Error(`trace: depth fell by more than one level at step ${i} (${step.op})`);
    }
    if (level !== active.length - 1) throw new Error(`trace: unexpected depth ${step.depth} at step ${i} (${step.op})`);
    const current = active[active.length - 1];
    const kind = CALL_OPS[step.op];
    if (kind) {
      const frame: Frame = {
        kind,
        from: current.context,
        to: { address: null },
        context: current.context,
        value: 0n,
        entered: false,
        success: false,
        children: [],
      };
      if (kind === 'CREATE' || kind === 'CREATE2') {
        frame.value = word(top(step, 0));
        frame.context = frame.to;
      } else {
        frame.to.address = addr(top(step, 1));
        if (kind === 'CALL' || kind === 'CALLCODE') frame.value = word(top(step, 2));
        if (kind === 'CALL' || kind === 'STATICCALL') frame.context = frame.to;
      }
      current.children.push(frame);
      pending = frame;
    } else if (step.op === 'SSTORE') {
      sstores.push({ context: current.context, slot: '0x' + top(step, 0).replace(/^0x/, '').padStart(64, '0').toLowerCase() });
    } else if (step.op === 'SELFDESTRUCT') {
      current.children.push({
        kind: 'SELFDESTRUCT',
        from: current.context,
        to: { address: addr(top(step, 0)) },
        context: current.context,
        value: 0n, // known only when replaying balances
        entered: false,
        success: true,
        children: [],
      });
    }
  }
  if (pending) pending.success = false;
  if (active.length > 1 && status === 1) throw new Error('trace: ended inside a nested frame of a successful transaction');
  return root;
}

// ---------------------------------------------------------------------------------------------
// Balances across the bundle (for SELFDESTRUCT amounts)

/**
 * Native balances during one transaction, journaled so a reverted frame undoes its moves.
 * Balances not seen yet are read from the node at the block before the transaction's (its state
 * includes overrides set on it: hardhat keeps them in that block's state).
 */
class Balances {
  private readonly values = new Map<string, bigint>();
  private journal: Array<[string, bigint]> = [];

  constructor(
    private readonly rpc: JsonRpc,
    private readonly block: number,
  ) {}

  async get(a: string): Promise<bigint> {
    let v = this.values.get(a);
    if (v === undefined && !/^0x[0-9a-f]{40}$/.test(a)) v = 0n; // a failed CREATE's unknown address: its moves are undone anyway
    if (v === undefined) {
      v = BigInt(await this.rpc.call<string>('eth_getBalance', [a, toBeHex(this.block)]));
      this.values.set(a, v);
    }
    return v;
  }

  /** Reads the balances of these accounts in one batch (the replay then needs no round trip per account). */
  async preload(accounts: Iterable<string>): Promise<void> {
    const missing = [...new Set(accounts)].filter((a) => /^0x[0-9a-f]{40}$/.test(a) && !this.values.has(a));
    const values = await this.rpc.all<string>(missing.map((a) => ({ method: 'eth_getBalance', params: [a, toBeHex(this.block)] })));
    missing.forEach((a, i) => this.values.set(a, BigInt(values[i]!)));
  }

  async set(a: string, v: bigint): Promise<void> {
    this.journal.push([a, await this.get(a)]);
    this.values.set(a, v);
  }

  async move(from: string, to: string, amount: bigint): Promise<void> {
    if (amount === 0n) return;
    await this.set(from, (await this.get(from)) - amount);
    await this.set(to, (await this.get(to)) + amount);
  }

  mark(): number {
    return this.journal.length;
  }

  revertTo(mark: number): void {
    while (this.journal.length > mark) {
      const [a, v] = this.journal.pop()!;
      this.values.set(a, v);
    }
  }
}

/**
 * Replays the value moves of one transaction's frames in execution order, fills in SELFDESTRUCT
 * amounts and returns the transfers that stuck (frame and ancestors succeeded), in pre-order.
 */
async function replay(root: Frame, tx: SentTx, balances: Balances): Promise<Transfer[]> {
  const created = new Set<string>(tx.create ? [tx.to] : []);
  const destroyed = new Set<string>();
  const transfers: Transfer[] = [];

  const visit = async (frame: Frame, depth: number, alive: boolean): Promise<void> => {
    const mark = balances.mark();
    const from = frame.from.address ?? '0x?';
    const to = frame.to.address ?? '0x?';
    const moves = frame.entered || frame.success; // a refused call (balance, depth) moves nothing
    const ok = alive && frame.success;
    switch (frame.kind) {
      case 'ROOT':
      case 'CALL':
      case 'CREATE':
      case 'CREATE2':
        if (moves) await balances.move(from, to, frame.value);
        if (frame.kind.startsWith('CREATE') && frame.entered) created.add(to);
        break;
      case 'CALLCODE':
        break; // value "moves" from the caller to itself
      case 'SELFDESTRUCT': {
        frame.value = await balances.get(from);
        await balances.move(from, to, frame.value);
        if (from === to && created.has(from)) await balances.set(from, 0n); // EIP-6780: burnt
        if (created.has(from) && ok) destroyed.add(from);
        break;
      }
      default:
        break;
    }
    // SELFDESTRUCT pseudo-frames hang one level below the frame that ran the opcode, so a
    // selfdestruct by the top-level contract is at depth 1, as in geth's callTracer.
    if (depth >= 1 && ok && frame.value > 0n && frame.kind !== 'DELEGATECALL' && frame.kind !== 'STATICCALL') {
      transfers.push({ from, to, amount: frame.value });
    }
    for (const child of frame.children) await visit(child, depth + 1, ok);
    if (!frame.success) balances.revertTo(mark);
  };
  await visit(root, 0, true);
  // an account created and self-destructed in this transaction is deleted at its end
  if (root.success) for (const a of destroyed) await balances.set(a, 0n);
  return transfers;
}

// ---------------------------------------------------------------------------------------------
// Running a bundle on the node

export interface ReferenceResult {
  block: number;
  calls: CallOutcome[];
}

/** Accounts and slots (beyond those the trace names) whose change must be checked, e.g. what the service says changed. */
export interface Candidates {
  accounts: Set<string>;
  slots: Set<string>; // `${address}:${slot}`
}

export interface ReferenceOptions {
  /** Gas of a call without its own (the service's default when the run leaves gas out). */
  defaultGas: bigint;
  gasMode: GasMode;
  /** Candidates per call (lowercase addresses, 32-byte slots). */
  candidates?: (call: number) => Candidates;
}

const normLog = (l: { address: string; topics: string[]; data: string }): Log => ({
  address: l.address.toLowerCase(),
  topics: l.topics.map((t) => t.toLowerCase()),
  data: l.data.toLowerCase(),
});

async function applyOverrides(rpc: JsonRpc, o: CaseOverrides): Promise<void> {
  const calls: RpcCall[] = [];
  for (const [a, acc] of Object.entries(o.accounts ?? {})) {
    if (acc.balance !== undefined) calls.push({ method: 'hardhat_setBalance', params: [a, toBeHex(acc.balance)] });
    if (acc.nonce !== undefined) calls.push({ method: 'hardhat_setNonce', params: [a, toBeHex(acc.nonce)] });
  }
  for (const [a, code] of Object.entries(o.contractCodes ?? {})) calls.push({ method: 'hardhat_setCode', params: [a, code] });
  for (const [a, slots] of Object.entries(o.storage ?? {})) {
    for (const [slot, value] of Object.entries(slots)) calls.push({ method: 'hardhat_setStorageAt', params: [a, slot, value] });
  }
  // Independent writes (one field of one account each): one batch, in any order.
  if (calls.length) await rpc.all(calls);
}

const word32 = (hex: string) => '0x' + hex.replace(/^0x/, '').toLowerCase().padStart(64, '0');

/**
 * Runs the bundle on the node as real transactions on top of the head block N, one block per
 * call (N+1, N+2, …, all with N's timestamp and base fee 0, gas price 0), so that the state
 * before and after each call is a block's state. Reads receipts and traces, compares the state
 * of every account and slot the call could have changed, and reverts the chain to N.
 */
export async function runReference(rpc: JsonRpc, bundle: Bundle, options: ReferenceOptions): Promise<ReferenceResult> {
  const [snapshot, head] = await rpc.all<any>([
    { method: 'evm_snapshot', params: [] },
    { method: 'eth_getBlockByNumber', params: ['latest', false] },
  ]);
  try {
    const block = Number(head.number);
    const coinbase = String(head.miner).toLowerCase();
    const overrideSlots = new Set<string>();
    const noteOverrides = (o: CaseOverrides | undefined) => {
      for (const [a, slots] of Object.entries(o?.storage ?? {})) for (const slot of Object.keys(slots)) overrideSlots.add(`${a.toLowerCase()}:${word32(slot)}`);
    };
    noteOverrides(bundle.overrides);
    if (bundle.overrides) await applyOverrides(rpc, bundle.overrides);
    await rpc.all([...new Set(bundle.calls.map((c) => c.from.toLowerCase()))].map((sender) => ({ method: 'hardhat_impersonateAccount', params: [sender] })));

    const calls: CallOutcome[] = [];
    for (const [i, c] of bundle.calls.entries()) {
      const before = block + i;
      if (c.overrides) {
        noteOverrides(c.overrides);
        await applyOverrides(rpc, c.overrides);
      }
      const from = c.from.toLowerCase();
      // Hardhat answers the calls of a batch concurrently, in no set order: a batch holds only
      // requests that do not depend on each other; the transaction goes after them.
      const [, , txCount] = await rpc.all<string>([
        { method: 'evm_setNextBlockTimestamp', params: [Number(head.timestamp)] },
        { method: 'hardhat_setNextBlockBaseFeePerGas', params: ['0x0'] },
        { method: 'eth_getTransactionCount', params: [from, 'latest'] },
      ]);
      const nonce = Number(txCount);
      if (c.nonce !== undefined && c.nonce !== nonce) throw new Error(`case error: call nonce ${c.nonce}, sender nonce ${nonce}`);
      const gas = options.gasMode === 'explicit' ? (c.gas ?? DEFAULT_GAS) : options.defaultGas;
      // Automine: the transaction is mined in a block of its own; one that reverts is mined too
      // (hardhat then answers with an error that carries its hash).
      let hash: string | undefined;
      try {
        hash = await rpc.call<string>('eth_sendTransaction', [
          {
            from,
            ...(c.to ? { to: c.to } : {}),
            data: c.data ?? '0x',
            value: toBeHex(c.value ?? 0n),
            gas: toBeHex(gas),
            gasPrice: '0x0',
            nonce: toBeHex(nonce),
          },
        ]);
      } catch (err) {
        hash = err instanceof JsonRpcError ? (err.data as { txHash?: string } | undefined)?.txHash : undefined;
        if (!hash) throw err;
      }
      const to = c.to ? c.to.toLowerCase() : getCreateAddress({ from, nonce }).toLowerCase();
      const tx: SentTx = { hash, from, to, value: c.value ?? 0n, create: !c.to };
      const [receipt, trace] = await rpc.all<any>([
        { method: 'eth_getTransactionReceipt', params: [hash] },
        { method: 'debug_traceTransaction', params: [hash, { disableStorage: true, disableMemory: true }] },
      ]);
      if (!receipt) throw new Error(`call #${i} was not mined`);
      if (Number(receipt.blockNumber) !== before + 1 || Number(receipt.transactionIndex) !== 0) {
        throw new Error(
          `call #${i} mined at block ${Number(receipt.blockNumber)} index ${Number(receipt.transactionIndex)}, expected block ${before + 1} index 0`,
        );
      }
      const status = Number(receipt.status) as 0 | 1;
      if (BigInt(trace.gas) !== BigInt(receipt.gasUsed) && trace.structLogs.length > 0) {
        // hardhat reports the receipt's gas in the trace; a difference would mean a wrong trace
        throw new Error(`call #${i}: trace gas ${trace.gas} != receipt gasUsed ${BigInt(receipt.gasUsed)}`);
      }
      const root = buildFrames(trace as Trace, tx, status);
      const balances = new Balances(rpc, before);
      const moving: string[] = [];
      const movers = (f: Frame) => {
        if (f.value > 0n || f.kind === 'SELFDESTRUCT') for (const ref of [f.from, f.to]) if (ref.address) moving.push(ref.address);
        f.children.forEach(movers);
      };
      movers(root);
      await balances.preload(moving);
      const internalTransfers = await replay(root, tx, balances);

      // Everything the call could have changed: the accounts its frames touched, the slots it
      // wrote, the bundle's overridden slots (a creation may clear them), and what the service
      // says it changed (so a change the node does not see shows up too).
      const accounts = new Set<string>([from, to, coinbase]);
      const slots = new Set<string>(overrideSlots);
      const visit = (f: Frame) => {
        for (const ref of [f.from, f.to, f.context]) if (ref.address && /^0x[0-9a-f]{40}$/.test(ref.address)) accounts.add(ref.address);
        f.children.forEach(visit);
      };
      visit(root);
      for (const w of root.sstores ?? []) if (w.context.address && /^0x[0-9a-f]{40}$/.test(w.context.address)) slots.add(`${w.context.address}:${w.slot}`);
      const extra = options.candidates?.(i);
      for (const a of extra?.accounts ?? []) accounts.add(a);
      for (const s of extra?.slots ?? []) slots.add(s);
      for (const s of slots) accounts.add(s.slice(0, 42));
      const updated = await stateDiff(rpc, before, [...accounts], [...slots]);

      calls.push({
        status,
        result: (trace.returnValue || '0x').toLowerCase().replace(/^(?!0x)/, '0x'),
        logs: (receipt.logs as Log[]).map(normLog),
        gasUsed: BigInt(receipt.gasUsed),
        internalTransfers,
        ...(tx.create && status === 1 && receipt.contractAddress ? { addressCreated: getAddress(receipt.contractAddress) } : {}),
        updated,
      });
    }
    return { block, calls };
  } finally {
    if (!(await rpc.call<boolean>('evm_revert', [snapshot]))) throw new Error(`evm_revert ${snapshot} failed`);
  }
}

/** The state at block `before + 1` against block `before`, over the given accounts and slots, in the service's `updated` form. */
async function stateDiff(rpc: JsonRpc, before: number, accounts: string[], slots: string[]): Promise<StateDiff> {
  const tags = [toBeHex(before), toBeHex(before + 1)];
  const reads: RpcCall[] = [];
  for (const a of accounts)
    for (const tag of tags) for (const method of ['eth_getBalance', 'eth_getTransactionCount', 'eth_getCode']) reads.push({ method, params: [a, tag] });
  for (const s of slots) for (const tag of tags) reads.push({ method: 'eth_getStorageAt', params: [s.slice(0, 42), s.slice(43), tag] });
  const values = await rpc.all<string>(reads);
  const diff: Required<StateDiff> = { accounts: {}, contractCodes: {}, storage: {} };
  accounts.forEach((a, i) => {
    const [b0, n0, c0, b1, n1, c1] = values.slice(i * 6, i * 6 + 6);
    const key = getAddress(a);
    const fields: { nonce?: number; balance?: string } = {};
    if (BigInt(n0!) !== BigInt(n1!)) fields.nonce = Number(BigInt(n1!));
    if (BigInt(b0!) !== BigInt(b1!)) fields.balance = '0x' + BigInt(b1!).toString(16);
    if (Object.keys(fields).length) diff.accounts[key] = fields;
    if (c0!.toLowerCase() !== c1!.toLowerCase()) diff.contractCodes[key] = c1!.toLowerCase();
  });
  const k = accounts.length * 6;
  slots.forEach((s, i) => {
    const [v0, v1] = [values[k + i * 2]!, values[k + i * 2 + 1]!];
    if (BigInt(v0) === BigInt(v1)) return;
    const key = getAddress(s.slice(0, 42));
    (diff.storage[key] ??= {})[s.slice(43)] = word32(v1);
  });
  const out: StateDiff = {};
  if (Object.keys(diff.accounts).length) out.accounts = diff.accounts;
  if (Object.keys(diff.contractCodes).length) out.contractCodes = diff.contractCodes;
  if (Object.keys(diff.storage).length) out.storage = diff.storage;
  return out;
}
