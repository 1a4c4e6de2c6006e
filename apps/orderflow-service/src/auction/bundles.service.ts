import { Inject, Injectable } from '@nestjs/common';
import {
  JsonRpcCode,
  MAX_BLOCKS_AHEAD,
  MevBundleSchema,
  type JsonRpcRequest,
  type MevBundle,
  type OrderflowMevMessage,
  type OrderflowReply,
  type SimBundleResult,
} from '@tradeinfra/contracts';
import { RpcUnavailable } from '@tradeinfra/service-kit';
import { concat, keccak256 } from 'ethers';
import { uuidv7 } from 'uuidv7';
import { z } from 'zod';
import { Chains, type Chain } from '../common/chains.js';
import { answerJsonRpc, params, positional, RpcFault } from '../common/json-rpc.js';
import { ENV, type OrderflowServiceEnv } from '../config/env.js';
import { PrivateTxsRepository, type PrivateTx } from '../intake/private-txs.repository.js';
import { decodeTransaction, type DecodedTx } from '../intake/transaction-checks.js';
import { BundleSimulator, type BundleSimulation } from './bundle-simulator.js';
import { BundlesRepository } from './bundles.repository.js';

const hex = (n: bigint) => `0x${n.toString(16)}`;
const reject = (message: string) => new RpcFault(JsonRpcCode.Rejected, message);

/** A bundle checked against its target and the chain, ready to simulate. */
interface CheckedBundle {
  chain: Chain;
  target: PrivateTx;
  targetTx: DecodedTx;
  backruns: { tx: DecodedTx; canRevert: boolean }[];
  beneficiary: string;
  head: bigint;
}

/** Searchers' JSON-RPC (MEV-Share's): `mev_sendBundle` bids on a pending private transaction, `mev_simBundle` tries one. */
@Injectable()
export class BundlesService {
  constructor(
    private readonly txs: PrivateTxsRepository,
    private readonly bundles: BundlesRepository,
    private readonly simulator: BundleSimulator,
    private readonly chains: Chains,
    @Inject(ENV) private readonly env: OrderflowServiceEnv,
  ) {}

  async mev(message: OrderflowMevMessage): Promise<OrderflowReply> {
    return { json: await answerJsonRpc(message.body, (request) => this.handle(message.searcher, request)) };
  }

  private schema() {
    return MevBundleSchema(this.env.ORDERFLOW_MAX_TX_BYTES, this.env.ORDERFLOW_MAX_BUNDLE_TXS);
  }

  private async handle(searcher: string, request: JsonRpcRequest): Promise<unknown> {
    switch (request.method) {
      case 'mev_sendBundle': {
        const [bundle] = params(z.tuple([this.schema()]), positional(request));
        return this.send(searcher, bundle);
      }
      case 'mev_simBundle': {
        const [bundle, options] = params(z.tuple([this.schema(), z.object({ parentBlock: z.string().optional() }).loose().optional()]), positional(request));
        return this.sim(bundle, options?.parentBlock);
      }
      default:
        throw new RpcFault(JsonRpcCode.MethodNotFound, `${request.method} is not served: this endpoint takes mev_sendBundle and mev_simBundle`);
    }
  }

  /** Simulates the bid; a good one joins its target's auction. Answers MEV-Share's `{bundleHash}`. */
  private async send(searcher: string, bundle: MevBundle): Promise<{ bundleHash: string }> {
    const checked = await this.check(bundle, true);
    const sim = await this.simulator.simulate(checked.chain.config.chainId, checked.beneficiary, checked.targetTx, checked.backruns, checked.head);
    if (!sim.verdict.ok) throw reject(`bundle refused: ${sim.verdict.reason}`);
    const bundleHash = keccak256(concat([checked.target.hash, ...checked.backruns.map((b) => b.tx.hash)]));
    const block = bundle.inclusion.block;
    await this.bundles.insert({
      id: uuidv7(),
      chainId: checked.chain.config.chainId,
      targetHash: checked.target.hash,
      searcher,
      bundleHash,
      txs: checked.backruns.map((b) => ({ raw: b.tx.raw, hash: b.tx.hash, canRevert: b.canRevert })),
      blockMin: block,
      blockMax: bundle.inclusion.maxBlock ?? block,
      bid: sim.verdict.bid,
      simBlock: sim.block,
    });
    return { bundleHash };
  }

  /** MEV-Share's simulation answer; the target may be pending or mined (then on the state before its block, or `parentBlock`). */
  private async sim(bundle: MevBundle, parentBlock: string | undefined): Promise<SimBundleResult> {
    const checked = await this.check(bundle, false);
    let block = checked.head;
    if (parentBlock !== undefined) {
      if (!/^0x[0-9a-fA-F]{1,16}$/.test(parentBlock))
        throw new RpcFault(JsonRpcCode.InvalidParams, 'Invalid params: params.1.parentBlock must be a 0x hex block number');
      block = BigInt(parentBlock);
    }
    const sim = await this.simulator.simulate(checked.chain.config.chainId, checked.beneficiary, checked.targetTx, checked.backruns, block);
    return simBundleResult(sim);
  }

  private async check(bundle: MevBundle, pendingOnly: boolean): Promise<CheckedBundle> {
    const [first, ...rest] = bundle.body;
    if (!first || !('hash' in first)) throw reject('body[0] must be {hash} of a pending private transaction (the target of the backrun)');
    const target = await this.txs.findByHash(first.hash);
    if (!target || (pendingOnly && target.status !== 'pending')) {
      throw reject(`body[0]: ${first.hash} is not a pending private transaction here (unknown, mined or past its maxBlockNumber)`);
    }
    const chain = this.chains.get(target.chainId);
    if (!chain) throw new RpcFault(JsonRpcCode.Unavailable, `chain ${target.chainId} is not served here`);
    const backruns = rest.map((item, i) => {
      if (!('tx' in item)) throw reject(`body[${i + 1}] must be {tx, canRevert}: only the target is given by hash`);
      const tx = decodeTransaction(item.tx, this.env.ORDERFLOW_MAX_TX_BYTES);
      if (tx.chainId !== BigInt(target.chainId)) throw reject(`body[${i + 1}] is for chain ${tx.chainId}, its target for chain ${target.chainId}`);
      if (tx.hash === target.hash) throw reject(`body[${i + 1}] is the target itself`);
      return { tx, canRevert: item.canRevert ?? false };
    });
    const head = await this.head(chain);
    const { block, maxBlock = block } = bundle.inclusion;
    if (maxBlock < block) throw new RpcFault(JsonRpcCode.InvalidParams, 'Invalid params: params.0.inclusion.maxBlock is before inclusion.block');
    if (pendingOnly && maxBlock <= head) throw reject(`inclusion.maxBlock ${maxBlock} is not after the current block ${head}`);
    if (block > head + BigInt(MAX_BLOCKS_AHEAD))
      throw reject(`inclusion.block ${block} is more than ${MAX_BLOCKS_AHEAD} blocks after the current block ${head}`);
    if (pendingOnly && block > target.maxBlock) throw reject(`inclusion.block ${block} is after the target's maxBlockNumber ${target.maxBlock}`);
    const beneficiary = await this.chains.beneficiary(target.chainId);
    if (!beneficiary)
      throw new RpcFault(
        JsonRpcCode.Unavailable,
        `no beneficiary is known for chain ${target.chainId} yet: bids cannot be measured (set ORDERFLOW_BENEFICIARY_${target.chainId})`,
      );
    return { chain, target, targetTx: decodeTransaction(target.raw, Number.MAX_SAFE_INTEGER), backruns, beneficiary, head };
  }

  private async head(chain: Chain): Promise<bigint> {
    try {
      return BigInt(await chain.rpc.call<string>('eth_blockNumber'));
    } catch (err) {
      if (err instanceof RpcUnavailable) throw new RpcFault(JsonRpcCode.Unavailable, `the chain's node did not answer (${err.detail})`);
      throw err;
    }
  }
}

/** MEV-Share's `mev_simBundle` answer: profit and refundable value are the bid (what the beneficiary is paid). */
export function simBundleResult(sim: BundleSimulation): SimBundleResult {
  const gasUsed = [sim.target, ...sim.backruns.map((b) => b.call)].reduce((sum, c) => sum + BigInt(c.gasUsed), 0n);
  const bid = sim.verdict.ok ? sim.verdict.bid : 0n;
  const backrunGas = sim.backruns.reduce((sum, b) => sum + BigInt(b.call.gasUsed), 0n);
  return {
    success: sim.verdict.ok,
    ...(sim.verdict.ok ? {} : { error: sim.verdict.reason }),
    stateBlock: hex(sim.block),
    mevGasPrice: hex(backrunGas > 0n ? bid / backrunGas : 0n),
    profit: hex(bid),
    refundableValue: hex(bid),
    gasUsed: hex(gasUsed),
    logs: [sim.target, ...sim.backruns.map((b) => b.call)].map((c) => ({ txLogs: c.logs })),
  };
}
