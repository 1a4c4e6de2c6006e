import { createBlock, type Block } from '@ethereumjs/block';
import { LRUCache } from 'lru-cache';
import type { BlockEnv } from '../chain/chain-state.js';
import type { ChainRules } from './hardforks.js';

const blocks = new LRUCache<string, Block>({ max: 64 });

/**
 * The block environment of `eth_call` at that block (one object per block and rules, shared):
 * base fee 0 so gas price 0 is accepted. Where the header carries a difficulty (BSC, Polygon)
 * DIFFICULTY/PREVRANDAO reads it, as geth-based clients do; else PREVRANDAO reads the mix hash.
 */
export function blockFor(env: BlockEnv, rules: ChainRules): Block {
  const key = `${rules.key}:${env.number}:${env.hash}`;
  let block = blocks.get(key);
  if (block) return block;
  const common = rules.common;
  const london = common.isActivatedEIP(1559);
  const cancun = common.isActivatedEIP(4844);
  const merged = common.isActivatedEIP(4399);
  const randao = merged && env.difficulty !== 0n ? `0x${env.difficulty.toString(16).padStart(64, '0')}` : env.mixHash;
  block = createBlock(
    {
      header: {
        number: env.number,
        timestamp: env.timestamp,
        gasLimit: env.gasLimit,
        coinbase: env.coinbase as `0x${string}`,
        difficulty: merged ? 0n : env.difficulty,
        mixHash: randao as `0x${string}`,
        ...(london ? { baseFeePerGas: 0n } : {}),
        ...(cancun
          ? {
              excessBlobGas: env.excessBlobGas ?? 0n,
              blobGasUsed: 0n,
              parentBeaconBlockRoot: (env.parentBeaconBlockRoot ?? `0x${'0'.repeat(64)}`) as `0x${string}`,
            }
          : {}),
      },
    },
    { common, skipConsensusFormatValidation: true, params: {} },
  );
  blocks.set(key, block);
  return block;
}
