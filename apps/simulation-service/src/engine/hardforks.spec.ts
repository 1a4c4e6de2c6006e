import { getActivePrecompiles } from '@ethereumjs/evm';
import type { ChainConfig } from '../config/env.js';
import { rulesFor } from './hardforks.js';

const chain = (chainId: number, hardfork: string | null = null): ChainConfig => ({ chainId, rpcUrls: ['http://127.0.0.1:1'], hardfork });
const at = (number: bigint, isoTime: string) => ({ number, timestamp: BigInt(Date.parse(isoTime) / 1000) });

const P256 = `${'0'.repeat(37)}100`;
const KZG = `${'0'.repeat(38)}0a`;

/** The precompiles a VM on these rules has (the hardfork's, with the chain's own additions and removals). */
function precompiles(rules: ReturnType<typeof rulesFor>) {
  const map = getActivePrecompiles(rules.common, rules.customPrecompiles);
  for (const [address, run] of map) if (run === undefined) map.delete(address);
  return map;
}

/** Gas P256VERIFY charges on these rules (whatever the input). */
async function p256Gas(rules: ReturnType<typeof rulesFor>): Promise<bigint> {
  const run = precompiles(rules).get(P256)!;
  const result = await run({ data: new Uint8Array(160), gasLimit: 100_000n, common: rules.common, _EVM: {} as never } as never);
  return result.executionGasUsed;
}

describe('EVM rules by chain and block', () => {
  describe('Ethereum mainnet (1)', () => {
    it('runs Osaka rules at today’s head: BPO2 (Osaka’s EVM), 2^24 gas per transaction, CLZ, P256VERIFY', async () => {
      const rules = rulesFor(chain(1), at(24_100_000n, '2026-11-20T00:00:00Z'));
      expect(rules.label).toBe('bpo2');
      expect(rules.txGasCap).toBe(1n << 24n);
      expect(rules.common.isActivatedEIP(7939)).toBe(true);
      expect(await p256Gas(rules)).toBe(6900n);
      expect(rules.maxInitCodeSize).toBe(49_152n);
    });

    it('picks the fork by time where mainnet schedules by time', () => {
      expect(rulesFor(chain(1), at(23_935_000n, '2025-12-05T00:00:00Z')).label).toBe('osaka');
      expect(rulesFor(chain(1), at(23_900_000n, '2025-11-20T00:00:00Z')).label).toBe('prague');
      const prague = rulesFor(chain(1), at(23_900_000n, '2025-11-20T00:00:00Z'));
      expect(prague.txGasCap).toBeNull();
      expect(prague.common.isActivatedEIP(7939)).toBe(false);
    });

    it('picks by number before the merge, and never mixes: a local chain with id 1 (low numbers, today’s time) runs today’s rules', () => {
      expect(rulesFor(chain(1), at(15_100_000n, '2022-07-08T00:00:00Z')).label).toBe('grayGlacier');
      expect(rulesFor(chain(1), at(5n, '2026-11-20T00:00:00Z')).label).toBe('bpo2');
      expect(rulesFor(chain(1), at(5n, '2025-12-05T00:00:00Z')).label).toBe('osaka');
    });

    it('lets HARDFORK_1 fix the fork whatever the block says', () => {
      const rules = rulesFor(chain(1, 'prague'), at(24_100_000n, '2026-11-20T00:00:00Z'));
      expect(rules.label).toBe('prague');
      expect(rules.txGasCap).toBeNull();
    });
  });

  describe('BNB Smart Chain (56)', () => {
    it('runs Mendel (Osaka’s EVM) at a late-2026 block, with Cancun’s blob fee schedule', async () => {
      const rules = rulesFor(chain(56), at(70_000_000n, '2026-11-20T00:00:00Z'));
      expect(rules.label).toBe('bsc mendel');
      expect(rules.txGasCap).toBe(1n << 24n);
      expect(rules.common.isActivatedEIP(7939)).toBe(true);
      expect(await p256Gas(rules)).toBe(6900n);
      expect(precompiles(rules).has(KZG)).toBe(true);
      expect(rules.common.param('blobGasPriceUpdateFraction')).toBe(3338477n);
    });

    it('ran Pascal (Prague) with P256VERIFY at RIP-7212’s price before Mendel', async () => {
      const rules = rulesFor(chain(56), at(50_000_000n, '2025-09-01T00:00:00Z'));
      expect(rules.label).toBe('bsc pascal');
      expect(rules.txGasCap).toBeNull();
      expect(rules.common.isActivatedEIP(7702)).toBe(true);
      expect(rules.common.isActivatedEIP(7939)).toBe(false);
      expect(await p256Gas(rules)).toBe(3450n);
      expect(rules.common.param('blobGasPriceUpdateFraction')).toBe(3338477n);
    });

    it('lets HARDFORK_56 override the schedule', () => {
      expect(rulesFor(chain(56, 'cancun'), at(70_000_000n, '2026-11-20T00:00:00Z')).label).toBe('cancun');
    });
  });

  describe('Polygon PoS (137)', () => {
    it('runs Chicago at a late-2026 block: Prague plus Osaka’s modexp, CLZ and P256VERIFY, 2^25 gas per transaction, no KZG, PIP-88', async () => {
      const rules = rulesFor(chain(137), at(100_000_000n, '2026-11-20T00:00:00Z'));
      expect(rules.label).toBe('polygon chicago');
      expect(rules.txGasCap).toBe(1n << 25n);
      expect(rules.common.isActivatedEIP(7939)).toBe(true);
      expect(rules.common.isActivatedEIP(7883)).toBe(true);
      expect(await p256Gas(rules)).toBe(6900n);
      expect(precompiles(rules).has(KZG)).toBe(false);
      expect(rules.pip88).toBe(true);
    });

    it('ran Madhugiri with the KZG precompile and RIP-7212 pricing, without CLZ', async () => {
      const rules = rulesFor(chain(137), at(81_000_000n, '2025-12-20T00:00:00Z'));
      expect(rules.label).toBe('polygon madhugiri');
      expect(rules.txGasCap).toBe(1n << 25n);
      expect(rules.common.isActivatedEIP(7939)).toBe(false);
      expect(precompiles(rules).has(KZG)).toBe(true);
      expect(await p256Gas(rules)).toBe(3450n);
      expect(rules.pip88).toBe(false);
    });

    it('ran Napoli (Cancun) without the KZG precompile', () => {
      const rules = rulesFor(chain(137), at(60_000_000n, '2024-08-01T00:00:00Z'));
      expect(rules.label).toBe('polygon napoli');
      expect(precompiles(rules).has(KZG)).toBe(false);
      expect(precompiles(rules).has(P256)).toBe(true);
    });
  });

  it('runs Prague on a chain it has no schedule for', () => {
    expect(rulesFor(chain(8453), at(38_000_000n, '2026-11-20T00:00:00Z')).label).toBe('prague');
  });
});
