import { Interface } from 'ethers';
import { type PoolState } from './checks.js';
import { type ExecutedChain } from './chain-clients.js';
import { type ClaimedIntent, type LaunchedToken } from './execution.repository.js';
import { type SenderState } from './buy-terms.js';
import { merkleStructHash } from '@tradeinfra/executor';
import { toMerkleBuyIntent } from '../intents/wallet-intent.js';
import { liquidityInCents } from './checks.js';
import { getReservesCall, orientReserves, stableReserves, type StableLayout } from '../chain/uniswap-v2.js';

const ERC20 = new Interface(['function balanceOf(address) view returns (uint256)', 'function allowance(address,address) view returns (uint256)']);
const EXECUTOR_VIEWS = new Interface([
  'function isNonceUsed(address wallet, uint256 nonce) view returns (bool)',
  'function merkleIntentUsed(address wallet, bytes32 structHash) view returns (bool)',
]);

/** The executor's view telling whether a wallet intent is spent: its nonce, or (Merkle's 5-field BuyIntent) its struct hash. */
function spentCall(intent: ClaimedIntent): string {
  return intent.nonce === null
    ? EXECUTOR_VIEWS.encodeFunctionData('merkleIntentUsed', [intent.wallet, merkleStructHash(toMerkleBuyIntent(intent))])
    : EXECUTOR_VIEWS.encodeFunctionData('isNonceUsed', [intent.wallet, intent.nonce]);
}
const hexQ = (n: bigint) => `0x${n.toString(16)}`;

/** The address a claimed intent's buy is sent from: the wallet, or for a wallet intent the chain's relayer. */
export function senderOf(chain: Pick<ExecutedChain, 'wallets'>, intent: Pick<ClaimedIntent, 'signature' | 'wallet'>): string {
  return intent.signature && chain.wallets ? chain.wallets.relayerAddress : intent.wallet;
}

/** The launch pool at the round's head, priced against the stable pair when there is one. */
export async function readLaunchPool(
  chain: ExecutedChain,
  launch: Pick<LaunchedToken, 'token' | 'pair'> & Partial<Pick<LaunchedToken, 'pending'>>,
  head: bigint,
  stable: StableLayout | null,
): Promise<PoolState> {
  const { config, rpc } = chain;
  const { pending } = launch;
  // A pending launch: the pool as the launch transaction leaves it (simulated on the head).
  const calls = [...(pending ? [] : [getReservesCall(launch.pair, head)]), ...(stable ? [getReservesCall(config.stablePair!, head)] : [])];
  const answers = calls.length > 0 ? await rpc.all<string>(calls) : [];
  const [reserves, stableAnswer] = pending ? [undefined, answers[0]] : [answers[0], answers[1]];
  const pool: PoolState = pending
    ? { reserveNative: pending.nativeReserve, reserveToken: pending.tokenReserve, liquidityCents: null }
    : { ...orientReserves(reserves!, launch.token, config.wrappedNative), liquidityCents: null };
  if (stable && pool.reserveNative !== 0n && pool.reserveToken !== 0n) {
    pool.liquidityCents = liquidityInCents(pool.reserveNative, { ...stableReserves(stableAnswer!, stable), stableDecimals: stable.decimals });
  }
  return pool;
}

/** What a sender's state at a head is while that head stays the head: its balance and, where a pending block gives the pending nonces, its transaction count (hex). */
interface HeadState {
  count: string | null;
  balance: string;
}

/**
 * One chain's senders' state at its newest head, read once per head: the executor reads the
 * waiting intents' senders as each block arrives (Executor.prefetchSenders), so a round at that head (a launch
 * seen in the mempool) finds them read. Every value is read at the head's number, so it is the
 * value the round would read itself; a failed read is forgotten and read again. A round at
 * another head reads for itself.
 */
export class SenderHeads {
  private head = -1n;
  private states = new Map<string, Promise<HeadState>>();

  /** Each sender's state at `head`, reading in one batch those not read yet. */
  read(rpc: Pick<ExecutedChain['rpc'], 'all'>, head: bigint, senders: string[], withCount: boolean): Promise<HeadState>[] {
    if (head > this.head) [this.head, this.states] = [head, new Map()];
    const cache = head === this.head ? this.states : new Map<string, Promise<HeadState>>();
    const keys = senders.map((w) => w.toLowerCase());
    const missing = [...new Set(keys.filter((w) => !cache.has(w)))];
    if (missing.length > 0) {
      const at = hexQ(head);
      const batch = rpc.all<string>(
        missing.flatMap((w) => [...(withCount ? [{ method: 'eth_getTransactionCount', params: [w, at] }] : []), { method: 'eth_getBalance', params: [w, at] }]),
      );
      const per = withCount ? 2 : 1;
      missing.forEach((w, i) => {
        const state = batch.then((v) => ({ count: withCount ? v[per * i]! : null, balance: v[per * i + per - 1]! }));
        state.catch(() => {
          if (cache.get(w) === state) cache.delete(w);
        });
        cache.set(w, state);
      });
    }
    return keys.map((w) => cache.get(w)!);
  }
}

/**
 * The senders' state at the head: from the node, the nonces and balances of `senders` and, for
 * wallet intents, the wallet's wrapped native balance and allowance to the executor and whether
 * its nonce is spent or revoked; from the database, the senders' buys still out. `heads` keeps
 * what does not change within a head (see SenderHeads).
 */
export async function readSenders(
  chain: ExecutedChain,
  intents: ClaimedIntent[],
  head: bigint,
  outstanding: (senders: string[]) => Promise<Map<string, bigint>>,
  heads: SenderHeads = new SenderHeads(),
  /** The pending block (PENDING_NONCES `block`) read already, as `[block]`; null or none: read here. */
  pendingAhead?: Promise<unknown[] | null>,
): Promise<SenderState> {
  const { config, rpc, wallets: execution } = chain;
  const at = hexQ(head);
  const senders = [...new Set(intents.map((i) => senderOf(chain, i)))];
  const walletIntents = execution ? intents.filter((i) => i.signature) : [];
  // Each sender's pending count, or (PENDING_NONCES `block`) its count at the head and one pending block.
  const fromBlock = (await chain.traits()).pendingNonces === 'block';
  const atHead = Promise.all(heads.read(rpc, head, senders, fromBlock));
  const readLive = () =>
    fromBlock ? readPendingBlock(rpc) : rpc.all<unknown>(senders.map((w) => ({ method: 'eth_getTransactionCount', params: [w, 'pending'] })));
  const [perWallet, out, walletReads] = await Promise.all([
    Promise.all([atHead, (fromBlock ? pendingAhead : undefined)?.then((ahead) => ahead ?? readLive()) ?? readLive()]).then(([states, live]) => [
      ...states.flatMap((state, i) => [fromBlock ? state.count : live[i], state.balance]),
      ...(fromBlock ? live : []),
    ]),
    outstanding(senders),
    rpc.all<string>(
      walletIntents.flatMap((i) => [
        { method: 'eth_call', params: [{ to: config.wrappedNative, data: ERC20.encodeFunctionData('balanceOf', [i.wallet]) }, at] },
        { method: 'eth_call', params: [{ to: config.wrappedNative, data: ERC20.encodeFunctionData('allowance', [i.wallet, execution!.executor]) }, at] },
        { method: 'eth_call', params: [{ to: execution!.executor, data: spentCall(i) }, at] },
      ]),
    ),
  ]);
  if (fromBlock) {
    const pendingBlock = perWallet.pop() as PendingBlock | null;
    // A sender's transactions in the node's pool count as out, like its buys still out.
    for (const [wallet, next] of mempoolNonces(pendingBlock)) {
      if (next - 1n > (out.get(wallet) ?? -1n)) out.set(wallet, next - 1n);
    }
  }
  return senderState(senders, perWallet as string[], out, walletIntents, walletReads);
}

/** The node's pending block with its transactions, as `[block]` (PENDING_NONCES `block`). */
export function readPendingBlock(rpc: Pick<ExecutedChain['rpc'], 'all'>): Promise<unknown[]> {
  return rpc.all<unknown>([{ method: 'eth_getBlockByNumber', params: ['pending', true] }]);
}

/**
 * The senders (lowercase) whose buys, numbered as if the node's pool held none of their own
 * transactions, meet one of them there: `first` is each sender's first nonce in the round, and
 * a sender clashes when the pending block has its transaction at that nonce or past it. Pure.
 */
export function poolClashes(block: PendingBlock | null, first: ReadonlyMap<string, bigint>): Set<string> {
  const clashes = new Set<string>();
  for (const [sender, next] of mempoolNonces(block)) {
    const nonce = first.get(sender);
    if (nonce !== undefined && next > nonce) clashes.add(sender);
  }
  return clashes;
}

/** What the pending-nonce reads need of a pending block (`eth_getBlockByNumber('pending', true)`). */
export interface PendingBlock {
  transactions: ({ from: string; nonce: string } | string)[];
}

/** Per sender (lowercase), the nonce after its last transaction in the pending block. Pure. */
export function mempoolNonces(block: PendingBlock | null): Map<string, bigint> {
  const next = new Map<string, bigint>();
  for (const tx of block?.transactions ?? []) {
    if (typeof tx === 'string') continue;
    const from = tx.from.toLowerCase();
    const after = BigInt(tx.nonce) + 1n;
    if (after > (next.get(from) ?? 0n)) next.set(from, after);
  }
  return next;
}

/**
 * The senders' state from the reads: `perWallet` is [pending nonce, balance] per sender,
 * `walletReads` [wrapped balance, allowance, nonce used] per wallet intent (hex). Pure.
 */
export function senderState(
  senders: string[],
  perWallet: string[],
  outstanding: Map<string, bigint>,
  walletIntents: Pick<ClaimedIntent, 'id' | 'wallet'>[],
  walletReads: string[],
): SenderState {
  // Per wallet (lowercase): the wrapped native it still holds and still allows the executor, as this round's earlier buys leave them.
  const wrapped = new Map<string, { balance: bigint; allowance: bigint }>();
  const nonceSpent = new Set<string>();
  walletIntents.forEach((i, k) => {
    wrapped.set(i.wallet.toLowerCase(), { balance: BigInt(walletReads[3 * k]!), allowance: BigInt(walletReads[3 * k + 1]!) });
    if (BigInt(walletReads[3 * k + 2]!) !== 0n) nonceSpent.add(i.id);
  });
  // The node's pending nonce, past any of the wallet's buys still out (a bundle is not in its pool).
  const nonce = new Map<string, bigint>();
  const balance = new Map<string, bigint>();
  senders.forEach((w, i) => {
    const next = BigInt(perWallet[2 * i]!);
    const after = (outstanding.get(w.toLowerCase()) ?? -1n) + 1n;
    nonce.set(w, next > after ? next : after);
    balance.set(w, BigInt(perWallet[2 * i + 1]!));
  });
  return { nonce, balance, wrapped, nonceSpent };
}
