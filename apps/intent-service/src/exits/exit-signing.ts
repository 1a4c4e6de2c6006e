import { type ExitTransaction, type UnsignedTransaction } from '@tradeinfra/contracts';
import { type Reserves } from '../chain/uniswap-v2.js';
import { type Block } from '../execution/buy-judgement.js';
import { type WebhookSigner } from '../execution/signer.js';
import { APPROVE_GAS, approveFor, SELL_GAS, sellCalldata } from './exit-calldata.js';
import { type ExitChain, type Firing, type Quoted, type SellJob, type SellJobs, type SenderReads } from './exit-chain.js';
import { sellMinOut, sellOut } from './exit-price.js';

/**
 * Quotes the firing exits highest bribe first, each on the pool the sells before it leave; an
 * exit whose quote is under its `minOut` is left out (short). Pure.
 */
export function quote(start: Reserves, loss: bigint, firing: Firing[]): { quoted: Quoted[]; short: SellJobs['short'] } {
  const ordered = [...firing].sort((a, b) => (a.exit.bribe === b.exit.bribe ? (a.exit.id < b.exit.id ? -1 : 1) : a.exit.bribe > b.exit.bribe ? -1 : 1));
  let pool = start;
  const quoted: Quoted[] = [];
  const short: SellJobs['short'] = [];
  for (const f of ordered) {
    const { out, after } = sellOut(pool, f.amount, loss);
    if (f.exit.minOut !== null && out < f.exit.minOut) {
      short.push({ id: f.exit.id, minOut: f.exit.minOut, quoted: out });
      continue;
    }
    quoted.push({ ...f, out, minOut: sellMinOut(out, f.exit.minOut, f.exit.maxSlippageBps) });
    pool = after;
  }
  return { quoted, short };
}

/**
 * Step: builds and signs the sells. Exits without a signing webhook are signed by the chain's
 * development signer, also ahead of a rug (kept in `chain.signedAhead` and reused while their
 * terms hold); webhook exits are signed only for a round that sends (never ahead).
 */
export class SellSigner {
  constructor(
    private readonly webhooks: WebhookSigner,
    private readonly defaultTip: bigint,
  ) {}

  /**
   * The quoted exits' transactions at the wallets' next nonces, fees for the block after `head`:
   * priority fee the exit's tip plus its bribe per gas, at least `minTip` (outbidding a rug) as far
   * as the sale's minOut pays for it.
   */
  build(chain: ExitChain, head: Block, token: string, quoted: Quoted[], senders: SenderReads, minTip = 0n): SellJob[] {
    const nonces = new Map(senders.nonces);
    const baseFee = BigInt(head.baseFeePerGas ?? '0x0');
    return quoted.map((f) => {
      const wallet = f.exit.wallet.toLowerCase();
      const needsApprove = (senders.allowances.get(f.exit.id) ?? 0n) < f.amount;
      const own = (f.exit.gasTip ?? this.defaultTip) + (f.exit.bribe + SELL_GAS - 1n) / SELL_GAS;
      // Outbidding a rug never costs more priority fee than the sale is sure to bring (its minOut).
      const affordable = f.minOut / (SELL_GAS + (needsApprove ? APPROVE_GAS : 0n));
      const outbid = minTip < affordable ? minTip : affordable;
      const tip = own > outbid ? own : outbid;
      const fees = { maxPriorityFeePerGas: tip.toString(), maxFeePerGas: (2n * baseFee + tip).toString() };
      const first = nonces.get(wallet)!;
      const tx = (to: string, data: string, gas: bigint, purpose: 'approve' | 'sell'): ExitTransaction => {
        const nonce = nonces.get(wallet)!;
        nonces.set(wallet, nonce + 1n);
        return {
          purpose,
          type: 2,
          chainId: chain.config.chainId,
          from: wallet,
          nonce: Number(nonce),
          to,
          value: '0',
          data,
          gasLimit: gas.toString(),
          ...fees,
          accessList: [],
          summary: null,
        };
      };
      const approve = needsApprove ? tx(token, approveFor(chain.config.router, f.amount), APPROVE_GAS, 'approve') : null;
      const sell = tx(chain.config.router, sellCalldata(f.amount, f.minOut, token, chain.config.wrappedNative, wallet, f.exit.expiry), SELL_GAS, 'sell');
      const terms = `${first}|${needsApprove}|${f.amount}|${tip}|${f.exit.expiry}|${token}`;
      return { f, approve, sell, terms, signed: null };
    });
  }

  /**
   * Signs the jobs not signed yet, for `target`. `ahead`: only development-signer ones (a sell
   * signed ahead is kept while its nonce, amount and fees hold and its `minOut` stays between the
   * fresh quote's least and the quote itself).
   */
  async sign(chain: ExitChain, jobs: SellJob[], target: bigint, ahead: boolean): Promise<void> {
    await Promise.all(
      jobs.map(async (job) => {
        if (job.signed) return;
        const exit = job.f.exit;
        if (!exit.webhookUrl) {
          const kept = chain.signedAhead.get(exit.id);
          const maxFee = BigInt(job.sell.maxFeePerGas);
          // The next block's base fee is at most 9/8 of this one's: a kept sell whose cap covers it is still includable.
          const floor = (BigInt(job.sell.maxFeePerGas) - BigInt(job.sell.maxPriorityFeePerGas)) / 2n;
          if (
            kept &&
            kept.terms === job.terms &&
            kept.minOut >= job.f.minOut &&
            kept.minOut <= job.f.out &&
            kept.maxFeePerGas >= (9n * floor) / 8n + BigInt(job.sell.maxPriorityFeePerGas)
          ) {
            job.signed = { approve: kept.approve, sell: kept.sell };
            return;
          }
          const signed = await this.signPair(chain, job, target);
          job.signed = signed;
          if (!('failed' in signed)) chain.signedAhead.set(exit.id, { terms: job.terms, minOut: job.f.minOut, maxFeePerGas: maxFee, ...signed });
          return;
        }
        if (!ahead) job.signed = await this.signPair(chain, job, target);
      }),
    );
  }

  private async signPair(chain: ExitChain, job: SellJob, target: bigint): Promise<SellJob['signed'] & object> {
    const approve = job.approve ? await this.signOne(chain, job, job.approve, target) : null;
    if (approve && !approve.ok) return { failed: { reason: approve.reason, detail: approve.detail } };
    const sell = await this.signOne(chain, job, job.sell, target);
    if (!sell.ok) return { failed: { reason: sell.reason, detail: sell.detail } };
    return { approve: approve?.ok ? approve.raw : null, sell: { raw: sell.raw, hash: sell.hash } };
  }

  private signOne(chain: ExitChain, job: SellJob, exitTx: ExitTransaction, target: bigint) {
    // The signers take any EIP-1559 transaction; only a buy's carries a summary.
    const tx = exitTx as unknown as UnsignedTransaction;
    const exit = job.f.exit;
    if (!exit.webhookUrl) return chain.devSigner.sign(tx);
    return this.webhooks.sign({
      intentId: exit.id,
      tenantId: exit.tenantId,
      webhookUrl: exit.webhookUrl,
      tx,
      launchBlock: target - 1n,
      targetBlock: target,
      protocol: exit.webhookProtocol,
      launch: { type: 'block', txHash: null, blockNumber: target - 1n },
    });
  }
}

/** Why a job's sell is not sent: its signer's refusal (null when signed or not signed yet). */
export function refusal(job: SellJob): { reason: string; detail: string } | null {
  return job.signed && 'failed' in job.signed ? job.signed.failed : null;
}
