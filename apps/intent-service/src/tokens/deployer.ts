import { getAddress, getCreateAddress } from 'ethers';
import type { ChainRpc } from '../chain/chain-rpc.js';

/** Who deployed a token: the creating transaction's sender, the transaction, its block and time. */
export interface DeployerFacts {
  deployer: string;
  txHash: string;
  blockNumber: bigint;
  /** Unix seconds. */
  timestamp: bigint;
}

/**
 * What a lookup found: the facts; `none` when the token's creation cannot be told from the chain
 * (it has code since genesis, or a contract created it: no transaction of the block creates it
 * directly); `not_deployed` when it has no code at `head` yet (look again later).
 */
export type DeployerLookup = { found: DeployerFacts } | 'none' | 'not_deployed';

interface Block {
  number: string;
  timestamp: string;
  transactions: { hash: string; from: string; to: string | null; nonce: string }[];
}

const hex = (n: bigint) => `0x${n.toString(16)}`;

/**
 * Finds the transaction that created `token` on a node with state history (an archive node, or a
 * local one): the first block where the address has code, by bisection (about log2(head) reads
 * of `eth_getCode`), then the transaction of that block whose CREATE address is the token. A
 * node that cannot answer for old state throws (the caller looks again later).
 */
export async function findDeployer(rpc: Pick<ChainRpc, 'call'>, token: string, head: bigint): Promise<DeployerLookup> {
  const hasCode = async (block: bigint) => (await rpc.call<string>('eth_getCode', [token, hex(block)])) !== '0x';
  if (!(await hasCode(head))) return 'not_deployed';
  if (await hasCode(0n)) return 'none';
  let [low, high] = [0n, head]; // no code at low, code at high
  while (high - low > 1n) {
    const mid = (low + high) / 2n;
    if (await hasCode(mid)) high = mid;
    else low = mid;
  }
  const block = await rpc.call<Block>('eth_getBlockByNumber', [hex(high), true]);
  const wanted = token.toLowerCase();
  const creation = block.transactions.find((tx) => tx.to === null && getCreateAddress({ from: tx.from, nonce: BigInt(tx.nonce) }).toLowerCase() === wanted);
  if (!creation) return 'none';
  return { found: { deployer: getAddress(creation.from), txHash: creation.hash, blockNumber: BigInt(block.number), timestamp: BigInt(block.timestamp) } };
}
