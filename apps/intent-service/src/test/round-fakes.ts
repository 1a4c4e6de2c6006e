import { getAddress } from 'ethers';
import type { ClaimedIntent, LaunchedToken, SubmittedIntent } from '../execution/execution.types.js';
import { type RoundChain, roundChain } from '../execution/round-chain.js';
import type { SignResult } from '../execution/signed-buy.js';
import type { Submission, Submitter } from '../execution/submitter.js';

/** Fakes the execution steps' specs share: intents, launches and a chain whose clients record what they are asked. */

export const ETH = 10n ** 18n;
export const WALLET = getAddress('0x00000000000000000000000000000000000000aa');
export const RELAYER = getAddress('0x00000000000000000000000000000000000000cc');
export const TOKEN = getAddress('0x00000000000000000000000000000000000000ff');
export const PAIR = getAddress('0x00000000000000000000000000000000000000ee');
export const ROUTER = getAddress('0x0000000000000000000000000000000000000077');
export const WETH = getAddress('0x0000000000000000000000000000000000000088');

export const claimed = (id: string, over: Partial<ClaimedIntent> = {}): ClaimedIntent => ({
  id,
  tenantId: 't',
  wallet: WALLET,
  tokenAddress: TOKEN,
  buyAmount: (ETH / 10n).toString(),
  bribe: '0',
  minIn: null,
  minOut: null,
  minLiquidity: null,
  maxBuyTax: null,
  maxSellTax: null,
  maxSlippageBps: null,
  feeBps: null,
  feeRecipient: null,
  firstOrFail: false,
  gasTip: null,
  expiry: 2_000_000_000n,
  webhookUrl: 'https://signer.example/sign',
  webhookBatch: false,
  webhookProtocol: 'tradeinfra',
  signature: null,
  nonce: null,
  ...over,
});

/** A signed launch transaction (type 2, tip 2 gwei, max fee 3 gwei). */
export const LAUNCH_RAW =
  '0x02f86d827a6980847735940084b2d05e00830493e09400000000000000000000000000000000000000778080c080a0998d7b6295dd1059ef53b20234fb49d9354f7cc38bcc7cff6b428f436811b4daa044c9bc11a2fecfcde2c5a4113d3185a0c5482c4ad3f7c1a9889eb9c4308a0682';

/** A launch seen in block 100 (`pending`: seen in the mempool instead, its transaction 0xlaunch). */
export const launched = (pending = false): LaunchedToken => ({
  token: TOKEN,
  pair: PAIR,
  blockNumber: pending ? null : 100n,
  seenAt: null,
  pending: pending
    ? {
        txHash: '0xlaunch',
        raw: LAUNCH_RAW,
        origin: { sender: '0xdeployer', nonce: 0n },
        tokenReserve: 1_000_000n * ETH,
        nativeReserve: 10n * ETH,
        stateAfter: {},
      }
    : null,
  launch: pending ? { type: 'public_transaction', txHash: '0xlaunch' } : { type: 'block', txHash: null },
});

export const submitted = (id: string, over: Partial<SubmittedIntent> = {}): SubmittedIntent => ({
  id,
  wallet: WALLET.toLowerCase(),
  txHash: `0xhash-${id}`,
  signedTx: `0xraw-${id}`,
  nonce: 1n,
  targetBlock: 101n,
  firstOrFail: false,
  expiry: 2_000_000_000n,
  bribe: 0n,
  behind: null,
  launchBlock: null,
  sentBehind: null,
  launchStamped: true,
  tokenLaunch: null,
  ...over,
});

export const signedOk = (id: string): SignResult => ({ ok: true, raw: `0xraw-${id}`, hash: `0xhash-${id}` });

/** A submitter that accepts everything and records each call. */
export function recordingSubmitter(kind: Submitter['kind'] = 'rpc') {
  const calls: { ids: string[]; targetBlock: bigint; behind?: string }[] = [];
  const submitter: Submitter = {
    kind,
    submit: (subs: Submission[], targetBlock: bigint, behind?: string) => {
      calls.push({ ids: subs.map((s) => s.intentId), targetBlock, ...(behind ? { behind } : {}) });
      return Promise.resolve(new Map(subs.map((s) => [s.intentId, null])));
    },
  };
  return { submitter, calls };
}

/** A chain (id 31337) on fake clients: `over` replaces any of them. */
export function fakeChain(over: Partial<RoundChain> = {}): RoundChain {
  const base = roundChain({
    config: { chainId: 31337, router: ROUTER, wrappedNative: WETH, mempool: 'ws', stablePair: null, relays: [] } as unknown as RoundChain['config'],
    rpc: {} as RoundChain['rpc'],
    submitter: recordingSubmitter().submitter,
    devSigner: { holds: () => true, sign: (tx: { nonce: number }) => Promise.resolve(signedOk(`dev-${tx.nonce}`)) } as unknown as RoundChain['devSigner'],
    wallets: null,
    traits: () => Promise.resolve({ pendingNonces: 'sender', orderedBatches: false }),
  });
  return { ...base, ...over };
}

export const silentLogger = { log: () => undefined, warn: () => undefined };
