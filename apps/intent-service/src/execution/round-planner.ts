import { type IntentStatusData } from '@tradeinfra/contracts';
import { getAddress } from 'ethers';
import { buyInitCode } from './buy.js';
import { buyTransaction, type BuyTerms, type Failure, type Job, type SenderState } from './buy-terms.js';
import { checkIntent, FailureReason, type PoolState } from './checks.js';
import { type ClaimedIntent } from './execution.repository.js';
import { type ProbeResult } from './token-prober.js';
import { walletIntentBuy } from './wallet-intent-buy.js';

/** A round's decisions: the failed intents and the buys to sign, in checking order. */
export interface Plan {
  targetBlock: bigint;
  failures: Failure[];
  jobs: Job[];
  /** Intents handed back untouched (the pool is empty: a reorg undid the launch). */
  release: string[];
  /**
   * Behind a pending launch, where the senders' nonces were numbered before the node's pending
   * block was in (see Executor.plan): the buys that meet a transaction of their sender's in the
   * node's pool, to hand back rather than send (with the sender's later ones).
   */
  poolCheck?: Promise<Job[]>;
}

export interface RoundInput {
  chain: { chainId: number; router: string; wrappedNative: string };
  /** The chain's executor and relayer (wallet intents); null where none is configured. */
  wallets: { executor: string; relayerAddress: string } | null;
  token: string;
  targetBlock: bigint;
  baseFee: bigint;
  defaultGasTip: bigint;
  /** The pool as the launch left it (with its worth, when priced). */
  launchPool: PoolState;
  /**
   * Behind a pending launch: the buys go in its block, and on a node's pool (no relays) a buy's
   * tip never exceeds the launch's (ordered by tip it would come first and find no pool); a
   * firstOrFail buy lands only in the block that gives `pair` its first liquidity. Null for a
   * launch seen in a block.
   */
  behindLaunch?: { tipCap: bigint | null; pair: string } | null;
  /** The token probe; null when no intent had anything to buy. */
  probe: ProbeResult | null;
  intents: ClaimedIntent[];
  state: SenderState;
  /** Whether a development signer holds the wallet (bot intents without a webhook). */
  devSignerHolds: (wallet: string) => boolean;
}

/**
 * Checks every intent of a round, in order, against the pool as the earlier buys leave it, and
 * builds the buys of those that pass (nonces, balances and gas accounted per sender). Pure: the
 * same input gives the same plan; it touches no row and no node.
 */
export function planRound(input: RoundInput): Pick<Plan, 'failures' | 'jobs'> {
  const { chain, launchPool, probe, state, targetBlock } = input;
  const failures: Failure[] = [];
  const jobs: Job[] = [];
  const fail = (intent: ClaimedIntent, reason: FailureReason, detail: string, data?: IntentStatusData) =>
    failures.push({ id: intent.id, reason, detail, data });
  const pool = { reserveNative: launchPool.reserveNative, reserveToken: launchPool.reserveToken };
  const router = getAddress(chain.router);
  const token = getAddress(input.token);
  for (const intent of input.intents) {
    if (!probe) {
      const buyAmount = BigInt(intent.buyAmount);
      const fee = intent.feeBps ? (buyAmount * BigInt(intent.feeBps)) / 10_000n : 0n;
      fail(intent, FailureReason.NothingToBuy, 'buyAmount after the fee is 0', { buyAmount: String(buyAmount), fee: String(fee) });
      continue;
    }
    if ('reverted' in probe) {
      fail(intent, FailureReason.BuyReverted, `a simulated buy reverted: ${probe.reverted}`);
      continue;
    }
    const checked = checkIntent(intent, launchPool, pool, probe);
    if (!checked.ok) {
      fail(intent, checked.reason, checked.detail, checked.data);
      continue;
    }
    const { quote } = checked;
    const wanted = intent.gasTip !== null ? BigInt(intent.gasTip) : input.defaultGasTip;
    const cap = input.behindLaunch?.tipCap ?? null;
    const tip = cap !== null && cap < wanted ? cap : wanted;
    const terms: BuyTerms = {
      targetBlock,
      inLaunchBlock: !!input.behindLaunch,
      launchPair: input.behindLaunch ? getAddress(input.behindLaunch.pair) : null,
      probeGas: probe.buyGas,
      maxFeePerGas: 2n * input.baseFee + tip,
      tip,
      token,
      router,
      quote,
    };
    const job = intent.signature ? walletIntentBuy(chain.chainId, input.wallets, intent, state, fail, terms) : botBuy(input, intent, fail, terms);
    if (job) {
      jobs.push(job);
      pool.reserveNative += quote.swapValue;
      pool.reserveToken -= quote.grossOut;
    }
  }
  return { failures, jobs };
}

/** A bot intent's buy: a transaction from the wallet itself (signed by its webhook or a development signer). */
function botBuy(
  input: RoundInput,
  intent: ClaimedIntent,
  fail: (intent: ClaimedIntent, reason: FailureReason, detail: string, data?: IntentStatusData) => void,
  t: BuyTerms,
): Job | null {
  const { chain, state } = input;
  if (!intent.webhookUrl && !input.devSignerHolds(intent.wallet)) {
    fail(intent, FailureReason.NoSigner, 'the intent has no webhookUrl and no development signer holds the wallet');
    return null;
  }
  const { quote } = t;
  const bribe = BigInt(intent.bribe);
  const gasLimit = (t.probeGas * 3n) / 2n + 30_000n;
  const value = quote.swapValue + quote.fee + bribe;
  const cost = value + gasLimit * t.maxFeePerGas;
  const left = state.balance.get(intent.wallet)!;
  if (left < cost) {
    fail(intent, FailureReason.InsufficientFunds, `the wallet holds ${left} wei, the buy needs up to ${cost}`, {
      balance: String(left),
      required: String(cost),
    });
    return null;
  }
  state.balance.set(intent.wallet, left - cost);
  // firstOrFail: in the block after a launch seen in a block; behind a pending launch, in the
  // block it lands in (checked on the pair, so the buy sent again behind it for a later block still holds).
  const onlyInBlock = intent.firstOrFail && !t.launchPair ? t.targetBlock : null;
  const onlyInLaunchBlockOf = intent.firstOrFail && t.launchPair ? t.launchPair : null;
  const n = state.nonce.get(intent.wallet)!;
  state.nonce.set(intent.wallet, n + 1n);
  const data = buyInitCode({
    router: chain.router,
    wrappedNative: chain.wrappedNative,
    token: input.token,
    wallet: intent.wallet,
    swapValue: quote.swapValue,
    amountOutMin: quote.amountOutMin,
    deadline: intent.expiry,
    fee: quote.fee,
    feeRecipient: intent.feeRecipient,
    bribe,
    onlyInBlock,
    onlyInLaunchBlockOf,
  });
  return {
    intent,
    tx: buyTransaction(t, {
      chainId: chain.chainId,
      from: intent.wallet, // stored EIP-55
      nonce: n,
      to: null,
      value,
      data,
      gasLimit,
      amountOutMin: quote.amountOutMin,
      feeRecipient: intent.feeRecipient,
      bribe,
      deadline: intent.expiry,
      onlyInBlock,
      onlyInLaunchBlockOf,
    }),
  };
}
