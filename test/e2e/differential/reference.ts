import { getCreateAddress, toBeHex } from 'ethers';
import type { JsonRpc } from './node.js';

// ---------------------------------------------------------------------------------------------
// Case shape (what cases.ts produces and both sides run)

export interface CaseCall {
  from: string;
  /** Omitted: a contract creation with `data` as init code. */
  to?: string;
  data?: string;
  value?: bigint;
  gas?: bigint;
  nonce?: number;
}

export interface CaseOverrides {
  accounts?: Record<string, { nonce?: number; balance?: bigint }>;
  contractCodes?: Record<string, string>;
  /** address → 32-byte slot → 32-byte value. */
  storage?: Record<string, Record<string, string>>;
}

export interface Bundle {
  calls: CaseCall[];
  overrides?: CaseOverrides;
}

export const DEFAULT_GAS = 10_000_000n;

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

export interface CallOutcome {
  status: 0 | 1;
  /** Return data (revert data when it reverted), `0x` when empty. */
  result: string;
  logs: Log[];
  gasUsed: bigint;
  internalTransfers: Transfer[];
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
 * Native balances during the bundle, journaled so a reverted frame undoes its moves. Balances
 * not seen yet are read from the node: `known` (taken after overrides, before mining) or the
 * state at block N.
 */
class Balances {
  private readonly values = new Map<string, bigint>();
  private journal: Array<[string, bigint]> = [];

  constructor(
    private readonly rpc: JsonRpc,
    private readonly block: number,
    known: Map<string, bigint>,
  ) {
    for (const [a, v] of known) this.values.set(a, v);
  }

  async get(a: string): Promise<bigint> {
    let v = this.values.get(a);
    if (v === undefined && !/^0x[0-9a-f]{40}$/.test(a)) v = 0n; // a failed CREATE's unknown address: its moves are undone anyway
    if (v === undefined) {
      v = BigInt(await this.rpc.call<string>('eth_getBalance', [a, toBeHex(this.block)]));
      this.values.set(a, v);
    }
    return v;
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

const normLog = (l: { address: string; topics: string[]; data: string }): Log => ({
  address: l.address.toLowerCase(),
  topics: l.topics.map((t) => t.toLowerCase()),
  data: l.data.toLowerCase(),
});

/**
 * Runs the bundle on the node as real transactions in one new block on top of the head block N
 * (same timestamp as N, gas price 0), reads receipts and traces, and reverts the chain to N.
 */
export async function runReference(rpc: JsonRpc, bundle: Bundle): Promise<ReferenceResult> {
  const snapshot = await rpc.call<string>('evm_snapshot');
  try {
    const head = await rpc.call<any>('eth_getBlockByNumber', ['latest', false]);
    const block = Number(head.number);
    const o = bundle.overrides ?? {};
    for (const [a, acc] of Object.entries(o.accounts ?? {})) {
      if (acc.balance !== undefined) await rpc.call('hardhat_setBalance', [a, toBeHex(acc.balance)]);
      if (acc.nonce !== undefined) await rpc.call('hardhat_setNonce', [a, toBeHex(acc.nonce)]);
    }
    for (const [a, code] of Object.entries(o.contractCodes ?? {})) await rpc.call('hardhat_setCode', [a, code]);
    for (const [a, slots] of Object.entries(o.storage ?? {})) {
      for (const [slot, value] of Object.entries(slots)) await rpc.call('hardhat_setStorageAt', [a, slot, value]);
    }

    // balances that the overrides may have changed, read before the block is mined
    const known = new Map<string, bigint>();
    const touched = new Set<string>([...Object.keys(o.accounts ?? {}), ...Object.keys(o.contractCodes ?? {}), ...Object.keys(o.storage ?? {})]);
    for (const c of bundle.calls) {
      touched.add(c.from);
      if (c.to) touched.add(c.to);
    }
    for (const a of touched) known.set(a.toLowerCase(), BigInt(await rpc.call<string>('eth_getBalance', [a, 'latest'])));

    await rpc.call('evm_setAutomine', [false]);
    const nonces = new Map<string, number>();
    const sent: SentTx[] = [];
    for (const sender of new Set(bundle.calls.map((c) => c.from.toLowerCase()))) {
      await rpc.call('hardhat_impersonateAccount', [sender]);
      nonces.set(sender, Number(await rpc.call<string>('eth_getTransactionCount', [sender, 'latest'])));
    }
    for (const c of bundle.calls) {
      const from = c.from.toLowerCase();
      const nonce = nonces.get(from)!;
      if (c.nonce !== undefined && c.nonce !== nonce) throw new Error(`case error: call nonce ${c.nonce}, sender nonce ${nonce}`);
      nonces.set(from, nonce + 1);
      const hash = await rpc.call<string>('eth_sendTransaction', [
        {
          from,
          ...(c.to ? { to: c.to } : {}),
          data: c.data ?? '0x',
          value: toBeHex(c.value ?? 0n),
          gas: toBeHex(c.gas ?? DEFAULT_GAS),
          gasPrice: '0x0',
          nonce: toBeHex(nonce),
        },
      ]);
      const to = c.to ? c.to.toLowerCase() : getCreateAddress({ from, nonce }).toLowerCase();
      sent.push({ hash, from, to, value: c.value ?? 0n, create: !c.to });
    }
    await rpc.call('evm_setNextBlockTimestamp', [Number(head.timestamp)]);
    await rpc.call('hardhat_setNextBlockBaseFeePerGas', ['0x0']);
    await rpc.call('evm_mine');

    const balances = new Balances(rpc, block, known);
    const calls: CallOutcome[] = [];
    for (const [i, tx] of sent.entries()) {
      const receipt = await rpc.call<any>('eth_getTransactionReceipt', [tx.hash]);
      if (!receipt) throw new Error(`call #${i} was not mined in the bundle's block`);
      if (Number(receipt.blockNumber) !== block + 1 || Number(receipt.transactionIndex) !== i) {
        throw new Error(`call #${i} mined at block ${Number(receipt.blockNumber)} index ${Number(receipt.transactionIndex)}, expected block ${block + 1} index ${i}`);
      }
      const status = Number(receipt.status) as 0 | 1;
      const trace = await rpc.call<Trace>('debug_traceTransaction', [tx.hash, { disableStorage: true, disableMemory: true }]);
      if (BigInt(trace.gas) !== BigInt(receipt.gasUsed) && trace.structLogs.length > 0) {
        // hardhat reports the receipt's gas in the trace; a difference would mean a wrong trace
        throw new Error(`call #${i}: trace gas ${trace.gas} != receipt gasUsed ${BigInt(receipt.gasUsed)}`);
      }
      const root = buildFrames(trace, tx, status);
      const internalTransfers = await replay(root, tx, balances);
      calls.push({
        status,
        result: (trace.returnValue || '0x').toLowerCase().replace(/^(?!0x)/, '0x'),
        logs: (receipt.logs as Log[]).map(normLog),
        gasUsed: BigInt(receipt.gasUsed),
        internalTransfers,
      });
    }
    return { block, calls };
  } finally {
    await rpc.call('evm_revert', [snapshot]);
    await rpc.call('evm_setAutomine', [true]);
  }
}
