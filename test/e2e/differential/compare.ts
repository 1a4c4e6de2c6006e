import type { SimulatedCall } from '@tradeinfra/contracts';
import type { BlockParam } from './cases.js';
import { DEFAULT_GAS, type Bundle, type CallOutcome, type CaseOverrides, type GasMode } from './reference.js';

const quantity = (v: bigint) => '0x' + v.toString(16);

function overridesBody(o: CaseOverrides): Record<string, unknown> {
  return {
    ...(o.accounts
      ? {
          accounts: Object.fromEntries(
            Object.entries(o.accounts).map(([a, acc]) => [
              a,
              { ...(acc.nonce !== undefined ? { nonce: acc.nonce } : {}), ...(acc.balance !== undefined ? { balance: quantity(acc.balance) } : {}) },
            ]),
          ),
        }
      : {}),
    ...(o.contractCodes ? { contractCodes: o.contractCodes } : {}),
    ...(o.storage ? { storage: o.storage } : {}),
  };
}

/**
 * The `POST /v1/simulate` body for a bundle, on block N: with each call's gas as the node ran it
 * (`explicit`, as `gas` or `gasLimit`), or with no gas at all (`default`: the service's default,
 * the fork's cap).
 */
export function simulateBody(bundle: Bundle, blockNumber: number, block: BlockParam = 'blockNumber', gasMode: GasMode = 'explicit'): Record<string, unknown> {
  const body: Record<string, unknown> = {
    chainId: 1,
    ...(block === 'latest' ? {} : { [block]: blockNumber }),
    calls: bundle.calls.map((c, i) => ({
      from: c.from,
      ...(c.to ? { to: c.to } : {}),
      data: c.data ?? '0x',
      ...(c.value !== undefined ? { value: quantity(c.value) } : {}),
      // Every other call names its gas `gasLimit` (Merkle's SDKs' name for it).
      ...(gasMode === 'explicit' ? { [i % 2 ? 'gasLimit' : 'gas']: quantity(c.gas ?? DEFAULT_GAS) } : {}),
      ...(c.nonce !== undefined ? { nonce: c.nonce } : {}),
      ...(c.overrides ? { overrides: overridesBody(c.overrides) } : {}),
    })),
  };
  if (bundle.overrides) body.overrides = overridesBody(bundle.overrides);
  return body;
}

/** JSON with object keys sorted at every level (two equal values print the same). */
export function canonical(v: unknown): string {
  const sort = (x: unknown): unknown =>
    Array.isArray(x)
      ? x.map(sort)
      : x && typeof x === 'object'
        ? Object.fromEntries(
            Object.keys(x)
              .sort()
              .map((k) => [k, sort((x as Record<string, unknown>)[k])]),
          )
        : x;
  return JSON.stringify(sort(v));
}

const show = (v: unknown) => JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? '0x' + x.toString(16) : x));
const lower = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : v);
const hexOrEmpty = (v: unknown) => {
  const s = typeof v === 'string' ? v.toLowerCase() : v;
  return s === '' ? '0x' : s;
};
const big = (v: unknown): bigint | string => {
  try {
    return BigInt(v as string);
  } catch {
    return `not a quantity: ${show(v)}`;
  }
};

/**
 * Field-by-field differences between the node's outcome and the service's, one line each:
 * `call #i <field>: node <x>, service <y>`. Empty when they agree.
 */
export function diffCalls(node: CallOutcome[], service: SimulatedCall[] | undefined): string[] {
  const out: string[] = [];
  if (!Array.isArray(service)) return [`calls: service returned ${show(service)}`];
  if (service.length !== node.length) out.push(`calls: node ${node.length} results, service ${service.length}`);
  for (let i = 0; i < Math.min(node.length, service.length); i++) {
    const n = node[i];
    const s = service[i];
    const at = `call #${i}`;
    if (Number(s.status) !== n.status) out.push(`${at} status: node ${n.status}, service ${show(s.status)}`);
    if (hexOrEmpty(s.result) !== n.result) out.push(`${at} result: node ${n.result}, service ${show(s.result)}`);
    const gas = big(s.gasUsed);
    if (gas !== n.gasUsed)
      out.push(
        `${at} gasUsed: node ${n.gasUsed}, service ${typeof gas === 'bigint' ? gas : gas} (${typeof gas === 'bigint' ? `${gas - n.gasUsed > 0n ? '+' : ''}${gas - n.gasUsed}` : '?'})`,
      );
    const error = s.error as { type?: unknown; message?: unknown } | undefined;
    if (n.status === 0 && !(error && typeof error.type === 'string' && typeof error.message === 'string' && error.message.length > 0)) {
      out.push(`${at} error: the call failed on the node, service gave no {type, message} (${show(s.error)})`);
    }
    if (n.status === 1 && s.error !== undefined) out.push(`${at} error: the call succeeded on the node, service says ${show(s.error)}`);
    if ((n.addressCreated ?? null) !== (s.addressCreated ?? null))
      out.push(`${at} addressCreated: node ${n.addressCreated ?? '(none)'}, service ${show(s.addressCreated ?? '(none)')}`);
    if (canonical(n.updated) !== canonical(s.updated)) out.push(`${at} updated: node ${canonical(n.updated)}, service ${canonical(s.updated)}`);

    const sl = Array.isArray(s.logs) ? s.logs : [];
    if (!Array.isArray(s.logs)) out.push(`${at} logs: service returned ${show(s.logs)}`);
    if (sl.length !== n.logs.length) out.push(`${at} logs: node ${n.logs.length} logs, service ${sl.length}`);
    for (let j = 0; j < Math.min(sl.length, n.logs.length); j++) {
      const a = n.logs[j];
      const b = sl[j];
      if (lower(b.address) !== a.address) out.push(`${at} logs[${j}].address: node ${a.address}, service ${show(b.address)}`);
      const topics = Array.isArray(b.topics) ? b.topics.map(lower) : b.topics;
      if (show(topics) !== show(a.topics)) out.push(`${at} logs[${j}].topics: node ${show(a.topics)}, service ${show(b.topics)}`);
      if (hexOrEmpty(b.data) !== a.data) out.push(`${at} logs[${j}].data: node ${a.data}, service ${show(b.data)}`);
    }

    const st = Array.isArray(s.internalTransfers) ? s.internalTransfers : [];
    if (!Array.isArray(s.internalTransfers)) out.push(`${at} internalTransfers: service returned ${show(s.internalTransfers)}`);
    const fmt = (t: { from: unknown; to: unknown; amount: unknown }) => `${lower(t.from)}→${lower(t.to)}:${show(big(t.amount))}`;
    const nt = n.internalTransfers.map(fmt);
    const stt = st.map(fmt);
    if (nt.join(', ') !== stt.join(', ')) out.push(`${at} internalTransfers: node [${nt.join(', ')}], service [${stt.join(', ')}]`);
  }
  return out;
}
