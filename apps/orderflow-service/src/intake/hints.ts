import { DEFAULT_HINTS, type HintLog, type HintName, type MevShareHint } from '@tradeinfra/contracts';
import { id } from 'ethers';
import type { DecodedTx } from './transaction-checks.js';

/** Swap events whose pool and kind `default_logs` shares (MEV-Share's "Stable" configuration): topic → topics kept. */
const SWAP_EVENTS = new Map<string, number>([
  [id('Swap(address,uint256,uint256,uint256,uint256,address)'), 1], // Uniswap V2 and its forks: the pool is the log's address
  [id('Swap(address,address,int256,int256,uint160,uint128,int24)'), 1], // Uniswap V3
  [id('Swap(bytes32,address,address,uint256,uint256)'), 2], // Balancer V2: the pool id is topic 1
  [id('TokenExchange(address,int128,uint256,int128,uint256)'), 1], // Curve
]);

/** The hints a sender's list stands for: `hash` always; none named: MEV-Share's defaults; `full`: everything. */
export function resolveHints(requested: readonly HintName[] | undefined): Set<HintName> {
  const hints = new Set<HintName>(requested ?? DEFAULT_HINTS);
  hints.add('hash');
  if (hints.has('full')) for (const h of ['calldata', 'contract_address', 'function_selector', 'logs', 'value', 'gas_used'] as const) hints.add(h);
  return hints;
}

/** What simulating the transaction on the pending state gave (null: the simulation failed). */
export interface HintSimulation {
  logs: HintLog[];
  gasUsed: string;
}

/** The stream event of a pending private transaction: only what its hints allow. */
export function buildHint(tx: DecodedTx, hints: ReadonlySet<HintName>, sim: HintSimulation | null): MevShareHint {
  const hint: MevShareHint = { hash: tx.hash };
  const entry: NonNullable<MevShareHint['txs']>[number] = {};
  if (hints.has('contract_address') && tx.to) entry.to = tx.to;
  if (hints.has('function_selector') && tx.data.length >= 10) entry.functionSelector = tx.data.slice(0, 10);
  if (hints.has('calldata')) entry.callData = tx.data;
  if (hints.has('value')) entry.value = `0x${tx.value.toString(16)}`;
  if (Object.keys(entry).length > 0) hint.txs = [entry];
  if (sim) {
    if (hints.has('logs')) hint.logs = sim.logs.map((l) => ({ address: l.address, topics: [...l.topics], data: l.data }));
    else if (hints.has('default_logs') || hints.has('special_logs')) {
      const swaps = sim.logs.flatMap((l) => {
        const kept = SWAP_EVENTS.get(l.topics[0] ?? '');
        return kept === undefined ? [] : [{ address: l.address, topics: l.topics.slice(0, kept), data: '0x' }];
      });
      if (swaps.length > 0) hint.logs = swaps;
    }
    if (hints.has('gas_used')) hint.gasUsed = sim.gasUsed;
  }
  return hint;
}
