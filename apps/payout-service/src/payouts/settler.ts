import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { ChainHealth } from '@tradeinfra/contracts';
import { ChainRpc, CLOCK, type Clock } from '@tradeinfra/service-kit';
import { Interface, Transaction, Wallet } from 'ethers';
import { ENV, type PayoutServiceEnv, type SettlementChain } from '../config/env.js';
import { PayoutsRepository, type SentPayout, type UnsentPayout } from './payouts.repository.js';

const ERC20 = new Interface(['function transfer(address to, uint256 amount) returns (bool)']);
/** Payouts signed per chain per tick. */
const BATCH = 50;
/** Gas when the node cannot estimate (e.g. the transfer would revert: the chain then says so). */
const FALLBACK_GAS = { native: 21_000n, token: 120_000n };

interface Receipt {
  status: string;
  blockNumber: string;
}
interface Block {
  number: string;
  baseFeePerGas?: string;
}

/** `amount` (a decimal string in the asset's units) as an integer of its smallest unit; throws if it has more decimals than the asset. */
export function toUnits(amount: string, decimals: number): bigint {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(amount);
  if (!match) throw new RangeError(`not a decimal amount: ${amount}`);
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  if (fraction.length > decimals) throw new RangeError(`${amount} has more than ${decimals} decimals`);
  return BigInt(match[1]!) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
}

/** What happened to a sent payout's transaction, from the chain's answers. */
export type SettlementDecision = 'paid' | 'failed' | 'wait' | 'resend' | 'replace';

/**
 * The pure decision for one sent payout: mined and confirmed → paid (status 1) or failed (status
 * 0); mined, not yet confirmed → wait; not mined while the treasury's nonce moved past it → failed
 * (another transaction, its replacement, took the nonce: it can never be mined); not mined past
 * the deadline → replace; otherwise → resend the same transaction.
 */
export function decide(p: {
  receipt: Receipt | null;
  head: bigint;
  confirmations: number;
  nonce: bigint;
  minedNonce: bigint;
  sentAt: Date;
  now: Date;
  deadlineSeconds: number;
}): SettlementDecision {
  if (p.receipt) {
    if (p.head - BigInt(p.receipt.blockNumber) + 1n < BigInt(p.confirmations)) return 'wait';
    return p.receipt.status === '0x1' ? 'paid' : 'failed';
  }
  if (p.minedNonce > p.nonce) return 'failed';
  if (p.now.getTime() - p.sentAt.getTime() > p.deadlineSeconds * 1000) return 'replace';
  return 'resend';
}

interface Chain {
  config: SettlementChain;
  rpc: ChainRpc;
  wallet: Wallet;
  timer: NodeJS.Timeout | null;
  running: Promise<void> | null;
}

/**
 * Automatic settlement (chains with `PAYOUT_SIGNER_KEY_<chainId>`): every tick, per chain, follows
 * the payouts it sent to PAID or TX_FAILED and signs and sends the new PENDING ones it can pay.
 * Each transaction is stored before it is sent, so a crash or a second replica can only resend it
 * (docs/design/payouts-settlement.md, docs/design/code-notes.md#settler).
 */
@Injectable()
export class Settler implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(Settler.name);
  private readonly chains: Chain[];
  private stopped = false;
  private failpointArmed: boolean;

  constructor(
    private readonly payouts: PayoutsRepository,
    @Inject(ENV) private readonly env: PayoutServiceEnv,
    @Inject(CLOCK) private readonly now: Clock,
  ) {
    this.chains = env.settlementChains.map((config) => ({
      config,
      rpc: new ChainRpc(config.rpcUrls, {
        maxLagBlocks: env.RPC_MAX_LAG_BLOCKS,
        checkIntervalMs: env.RPC_CHECK_INTERVAL_MS,
        checkTimeoutMs: env.RPC_CHECK_TIMEOUT_MS,
        logger: this.logger,
        name: `chain ${config.chainId}`,
      }),
      wallet: new Wallet(config.signerKey),
      timer: null,
      running: null,
    }));
    this.failpointArmed = env.PAYOUT_FAILPOINT !== undefined;
  }

  onApplicationBootstrap(): void {
    for (const chain of this.chains) {
      const assets = [chain.config.nativeAsset, ...chain.config.tokens.keys()].filter((a) => this.env.PAYOUT_ASSETS.has(a));
      this.logger.log(`settling payouts on chain ${chain.config.chainId} from ${chain.wallet.address}: ${assets.join(', ') || 'no configured asset'}`);
      this.schedule(chain, 0);
    }
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    for (const chain of this.chains) if (chain.timer) clearTimeout(chain.timer);
    await Promise.all(this.chains.map((c) => c.running ?? Promise.resolve()));
    for (const chain of this.chains) chain.rpc.close();
  }

  /** Each settlement chain's endpoints, for `/health/services`. */
  async health(): Promise<ChainHealth[]> {
    return Promise.all(this.chains.map(async (c) => ({ chainId: c.config.chainId, endpoints: await c.rpc.checkedStatus() })));
  }

  private schedule(chain: Chain, delayMs: number): void {
    if (this.stopped) return;
    chain.timer = setTimeout(() => {
      chain.running = this.tick(chain)
        .catch((err: unknown) => this.logger.warn(`settlement on chain ${chain.config.chainId}: ${(err as Error).message}`))
        .finally(() => {
          chain.running = null;
          this.schedule(chain, this.env.PAYOUT_SETTLE_INTERVAL_MS);
        });
    }, delayMs);
    chain.timer.unref();
  }

  /** One round for one chain: follow what was sent, then send what is new. */
  async tick(chain: Chain): Promise<void> {
    await this.follow(chain);
    if (!this.stopped) await this.sendNew(chain);
  }

  private async follow(chain: Chain): Promise<void> {
    const sent = await this.payouts.sent(chain.config.chainId);
    if (sent.length === 0) return;
    const sender = chain.wallet.address;
    const [head, minedNonce, ...receipts] = await chain.rpc.all<unknown>([
      { method: 'eth_blockNumber', params: [] },
      { method: 'eth_getTransactionCount', params: [sender, 'latest'] },
      ...sent.map((s) => ({ method: 'eth_getTransactionReceipt', params: [s.txHash] })),
    ]);
    const now = new Date(this.now());
    for (const [i, payout] of sent.entries()) {
      const decision = decide({
        receipt: receipts[i] as Receipt | null,
        head: BigInt(head as string),
        confirmations: this.env.PAYOUT_CONFIRMATIONS,
        nonce: payout.nonce,
        minedNonce: BigInt(minedNonce as string),
        sentAt: payout.sentAt,
        now,
        deadlineSeconds: this.env.PAYOUT_TX_DEADLINE_SECONDS,
      });
      switch (decision) {
        case 'paid':
          if (await this.payouts.markPaid(payout.id)) this.logger.log(`payout ${payout.id}: PAID (${payout.txHash})`);
          break;
        case 'failed':
          // Not mined and the nonce moved on: the receipt was read beside the nonce, so read it
          // once more, of every node (one behind has no receipt yet); only a transaction still
          // unmined now, everywhere, can never be mined.
          if (!receipts[i] && (await this.minedSomewhere(chain, payout.txHash))) break;
          if (await this.payouts.markFailed(payout.id))
            this.logger.warn(
              `payout ${payout.id}: TX_FAILED (${receipts[i] ? 'reverted' : 'its nonce was taken by another transaction'}); its entries are claimable again`,
            );
          break;
        case 'wait':
          break;
        case 'resend':
          await this.broadcast(chain, payout.cancelTx ?? payout.signedTx, payout.id);
          break;
        case 'replace':
          await this.replace(chain, payout);
          break;
      }
    }
  }

  /** Whether any live node has a receipt of the transaction (an error counts as yes: nothing is concluded). */
  private async minedSomewhere(chain: Chain, txHash: string): Promise<boolean> {
    const [reply] = await chain.rpc.everywhere<Receipt>([{ method: 'eth_getTransactionReceipt', params: [txHash] }]);
    return !reply || reply.error !== undefined || (reply.result ?? null) !== null;
  }

  /** A zero-value self-transfer at the stuck transaction's nonce, paying twice its fees (at least today's). */
  private async replace(chain: Chain, payout: SentPayout): Promise<void> {
    let raw = payout.cancelTx;
    if (!raw) {
      const stuck = Transaction.from(payout.signedTx);
      const fees = await this.fees(chain);
      const double = (a: bigint | null, b: bigint) => (a !== null && 2n * a > b ? 2n * a : b);
      const cancel = Transaction.from({
        type: 2,
        chainId: BigInt(chain.config.chainId),
        nonce: Number(payout.nonce),
        to: chain.wallet.address,
        value: 0n,
        data: '0x',
        gasLimit: 21_000n,
        maxPriorityFeePerGas: double(stuck.maxPriorityFeePerGas, fees.tip),
        maxFeePerGas: double(stuck.maxFeePerGas, fees.maxFee),
      });
      raw = await this.payouts.setCancel(payout.id, await chain.wallet.signTransaction(cancel));
      this.logger.warn(`payout ${payout.id}: unmined after ${this.env.PAYOUT_TX_DEADLINE_SECONDS} s, replaced at nonce ${payout.nonce}`);
    }
    await this.broadcast(chain, raw, payout.id);
  }

  private async sendNew(chain: Chain): Promise<void> {
    const { config } = chain;
    const assets = [config.nativeAsset, ...config.tokens.keys()].filter((a) => this.env.PAYOUT_ASSETS.has(a));
    const unsent = await this.payouts.unsent(config.chainId, assets, BATCH);
    if (unsent.length === 0) return;
    const sender = chain.wallet.address;
    const nonceFloor = BigInt(await chain.rpc.call<string>('eth_getTransactionCount', [sender, 'pending']));
    const fees = await this.fees(chain);
    for (const payout of unsent) {
      if (this.stopped) return;
      const call = this.transferOf(config, payout);
      const gasLimit = await this.gasOf(chain, call);
      const prepared = await this.payouts.prepare({ id: payout.id, chainId: config.chainId, sender, nonceFloor }, async (nonce) => {
        const raw = await chain.wallet.signTransaction({
          type: 2,
          chainId: BigInt(config.chainId),
          nonce: Number(nonce),
          to: call.to,
          value: call.value,
          data: call.data,
          gasLimit,
          maxPriorityFeePerGas: fees.tip,
          maxFeePerGas: fees.maxFee,
        });
        return { raw, hash: Transaction.from(raw).hash! };
      });
      if (!prepared) continue;
      this.failpoint('after-sign');
      await this.broadcast(chain, prepared.raw, payout.id);
      this.failpoint('after-send');
      this.logger.log(`payout ${payout.id}: sent ${payout.amount} ${payout.asset} to ${payout.address} (${prepared.hash}, nonce ${prepared.nonce})`);
    }
  }

  private transferOf(config: SettlementChain, payout: UnsentPayout): { to: string; value: bigint; data: string } {
    const units = toUnits(payout.amount, this.env.PAYOUT_ASSETS.get(payout.asset)!);
    if (payout.asset === config.nativeAsset) return { to: payout.address, value: units, data: '0x' };
    return { to: config.tokens.get(payout.asset)!, value: 0n, data: ERC20.encodeFunctionData('transfer', [payout.address, units]) };
  }

  private async gasOf(chain: Chain, call: { to: string; value: bigint; data: string }): Promise<bigint> {
    try {
      const estimate = BigInt(
        await chain.rpc.call<string>('eth_estimateGas', [{ from: chain.wallet.address, to: call.to, value: `0x${call.value.toString(16)}`, data: call.data }]),
      );
      return (estimate * 6n) / 5n;
    } catch {
      return call.data === '0x' ? FALLBACK_GAS.native : FALLBACK_GAS.token;
    }
  }

  private async fees(chain: Chain): Promise<{ tip: bigint; maxFee: bigint }> {
    const block = await chain.rpc.call<Block>('eth_getBlockByNumber', ['latest', false]);
    const tip = this.env.PAYOUT_GAS_TIP_WEI;
    return { tip, maxFee: 2n * BigInt(block.baseFeePerGas ?? '0x0') + tip };
  }

  /** Sends a signed transaction; "already known" and the like are expected (it is sent again on purpose). */
  private async broadcast(chain: Chain, raw: string, payoutId: string): Promise<void> {
    try {
      await chain.rpc.call<string>('eth_sendRawTransaction', [raw]);
    } catch (err) {
      const message = (err as Error).message;
      if (!/already known|known transaction|already imported|nonce too low|replacement transaction underpriced/i.test(message)) {
        this.logger.warn(`payout ${payoutId}: the node refused its transaction: ${message}`);
      }
    }
  }

  /** Tests only (PAYOUT_FAILPOINT): the process dies here, as a kill -9 would take it, on its first payout. */
  private failpoint(at: 'after-sign' | 'after-send'): void {
    if (!this.failpointArmed || this.env.PAYOUT_FAILPOINT !== at) return;
    this.failpointArmed = false;
    this.logger.warn(`PAYOUT_FAILPOINT=${at}: killing this process`);
    process.kill(process.pid, 'SIGKILL');
  }
}
