import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  DEFAULT_MAX_BLOCKS,
  JsonRpcCode,
  MAX_BLOCKS_AHEAD,
  PrivateTransactionParamsSchema,
  rawTransaction,
  type HintName,
  type JsonRpcRequest,
  type OrderflowReply,
  type OrderflowRpcMessage,
} from '@tradeinfra/contracts';
import { RpcError, RpcUnavailable } from '@tradeinfra/service-kit';
import { z } from 'zod';
import { Chains, type Chain } from '../common/chains.js';
import { answerJsonRpc, params, positional, RpcFault } from '../common/json-rpc.js';
import { NatsIo, SimulationClient } from '../common/nats-io.js';
import { ENV, type OrderflowServiceEnv } from '../config/env.js';
import { buildHint, resolveHints, type HintSimulation } from './hints.js';
import { PrivateTxsRepository } from './private-txs.repository.js';
import { checkAgainstChain, decodeTransaction, type DecodedTx } from './transaction-checks.js';

/** Read methods forwarded to the chain's node as they are, so the URL serves as a wallet's whole RPC. */
export const FORWARDED_READS = new Set([
  'eth_chainId',
  'net_version',
  'net_listening',
  'web3_clientVersion',
  'eth_blockNumber',
  'eth_syncing',
  'eth_getBalance',
  'eth_getTransactionCount',
  'eth_getCode',
  'eth_getStorageAt',
  'eth_getProof',
  'eth_call',
  'eth_estimateGas',
  'eth_createAccessList',
  'eth_gasPrice',
  'eth_maxPriorityFeePerGas',
  'eth_blobBaseFee',
  'eth_feeHistory',
  'eth_getBlockByNumber',
  'eth_getBlockByHash',
  'eth_getBlockTransactionCountByNumber',
  'eth_getBlockTransactionCountByHash',
  'eth_getBlockReceipts',
  'eth_getTransactionByHash',
  'eth_getTransactionByBlockNumberAndIndex',
  'eth_getTransactionByBlockHashAndIndex',
  'eth_getTransactionReceipt',
  'eth_getLogs',
  'eth_getUncleCountByBlockNumber',
  'eth_getUncleCountByBlockHash',
]);

/** What a simulation's log is to a hint. */
const toHintSimulation = (call: { logs: HintSimulation['logs']; gasUsed: string; status: number }): HintSimulation => ({
  logs: call.logs,
  gasUsed: call.gasUsed,
});

/**
 * A wallet's JSON-RPC: private transactions in (checked, simulated for their hints, stored,
 * hinted), reads forwarded to the chain's node, other writes refused.
 */
@Injectable()
export class IntakeService {
  private readonly logger = new Logger(IntakeService.name);

  constructor(
    private readonly txs: PrivateTxsRepository,
    private readonly chains: Chains,
    private readonly nats: NatsIo,
    private readonly simulation: SimulationClient,
    @Inject(ENV) private readonly env: OrderflowServiceEnv,
  ) {}

  async rpc(message: OrderflowRpcMessage): Promise<OrderflowReply> {
    const chainId = message.chainId ?? 1;
    const chain = this.chains.get(chainId);
    return {
      json: await answerJsonRpc(message.body, async (request) => {
        if (!chain) throw new RpcFault(JsonRpcCode.Unavailable, `chain ${chainId} is not served here (chains: ${this.chains.ids().join(', ') || 'none'})`);
        return this.handle(chain, message, request);
      }),
    };
  }

  private async handle(chain: Chain, message: OrderflowRpcMessage, request: JsonRpcRequest): Promise<unknown> {
    switch (request.method) {
      case 'eth_sendRawTransaction': {
        const [raw] = params(z.tuple([rawTransaction(this.env.ORDERFLOW_MAX_TX_BYTES)]), positional(request));
        return this.accept(chain, message, raw, undefined, undefined);
      }
      case 'eth_sendPrivateTransaction': {
        const [p] = params(z.tuple([PrivateTransactionParamsSchema(this.env.ORDERFLOW_MAX_TX_BYTES)]), positional(request));
        return this.accept(chain, message, p.tx, p.maxBlockNumber, p.preferences?.privacy?.hints);
      }
      case 'eth_getTransactionCount':
        return this.transactionCount(chain, positional(request));
      default:
        if (!FORWARDED_READS.has(request.method)) {
          throw new RpcFault(
            JsonRpcCode.MethodNotFound,
            `${request.method} is not served: this endpoint takes eth_sendRawTransaction and eth_sendPrivateTransaction, and forwards read methods to the chain`,
          );
        }
        return this.forward(chain, request.method, positional(request));
    }
  }

  /** Checks, simulates, stores and hints a private transaction; answers its hash (the same again for a resend). */
  private async accept(
    chain: Chain,
    message: OrderflowRpcMessage,
    raw: string,
    maxBlockNumber: bigint | undefined,
    requestedHints: readonly HintName[] | undefined,
  ): Promise<string> {
    const chainId = chain.config.chainId;
    const tx = decodeTransaction(raw, this.env.ORDERFLOW_MAX_TX_BYTES);
    if (tx.chainId !== BigInt(chainId)) throw new RpcFault(JsonRpcCode.Rejected, `transaction is for chain ${tx.chainId}, this endpoint is chain ${chainId}`);
    const known = await this.txs.find(chainId, tx.hash);
    if (known) return known.hash;
    if (chain.relays.size === 0) {
      throw new RpcFault(
        JsonRpcCode.Unavailable,
        `no relay is configured for chain ${chainId}: a private transaction could not be delivered (set ORDERFLOW_RELAY_URLS_${chainId})`,
      );
    }
    const [nonce, balance, head] = await this.read(chain, [
      { method: 'eth_getTransactionCount', params: [tx.from, 'latest'] },
      { method: 'eth_getBalance', params: [tx.from, 'latest'] },
      { method: 'eth_blockNumber', params: [] },
    ]);
    checkAgainstChain(tx, chainId, { nonce: Number(BigInt(nonce as string)), balance: BigInt(balance as string) });
    const headBlock = BigInt(head as string);
    const maxBlock = maxBlockNumber ?? headBlock + BigInt(DEFAULT_MAX_BLOCKS);
    if (maxBlock <= headBlock) throw new RpcFault(JsonRpcCode.Rejected, `maxBlockNumber ${maxBlock} is not after the current block ${headBlock}`);
    if (maxBlock > headBlock + BigInt(MAX_BLOCKS_AHEAD)) {
      throw new RpcFault(JsonRpcCode.Rejected, `maxBlockNumber ${maxBlock} is more than ${MAX_BLOCKS_AHEAD} blocks after the current block ${headBlock}`);
    }
    const hints = resolveHints(requestedHints);
    const sim = await this.simulate(chainId, tx, headBlock);
    const hintJson = JSON.stringify(buildHint(tx, hints, sim));
    const outcome = await this.txs.insert({
      chainId,
      hash: tx.hash,
      sourceId: message.sourceId,
      tenantId: message.tenantId,
      sender: tx.from,
      nonce: tx.nonce,
      raw: tx.raw,
      hints: [...hints],
      firstBlock: headBlock + 1n,
      maxBlock,
      useMempool: message.useMempool,
      hintJson,
    });
    if (outcome === 'nonce_taken') {
      const other = await this.txs.pendingAt(chainId, tx.from, tx.nonce);
      throw new RpcFault(
        JsonRpcCode.Rejected,
        `nonce ${tx.nonce} of ${tx.from} is already used by the pending private transaction ${other?.hash ?? ''} (it is not replaced: wait for it to be mined or to pass its maxBlockNumber)`.replace(
          ' )',
          ')',
        ),
      );
    }
    if (outcome === 'inserted') {
      this.nats.publishHint(chainId, hintJson);
      await this.txs.markHintPublished(chainId, tx.hash);
    }
    return tx.hash;
  }

  /** The transaction alone on the state after `block`: its logs and gas, or null when the simulation fails (the hint then carries neither). */
  private async simulate(chainId: number, tx: DecodedTx, block: bigint): Promise<HintSimulation | null> {
    try {
      const result = await this.simulation.simulate(
        {
          chainId,
          blockNumber: block.toString(),
          calls: [{ from: tx.from, to: tx.to, data: tx.data, value: tx.value.toString(), gas: tx.gasLimit.toString() }],
        },
        this.env.ORDERFLOW_SIM_TIMEOUT_MS,
      );
      return toHintSimulation(result.calls[0]!);
    } catch (err) {
      this.logger.warn(`chain ${chainId}: simulating ${tx.hash} for its hint failed (hinted without logs or gas): ${(err as Error).message}`);
      return null;
    }
  }

  /** `pending` counts the sender's pending private transactions too, so a wallet numbers its next transaction right. */
  private async transactionCount(chain: Chain, args: unknown[]): Promise<unknown> {
    const count = await this.forward(chain, 'eth_getTransactionCount', args);
    const [address, tag] = args;
    if (tag !== 'pending' || typeof address !== 'string' || typeof count !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(address)) return count;
    const highest = await this.txs.highestPendingNonce(chain.config.chainId, address.toLowerCase());
    if (highest === null || highest + 1 <= Number(BigInt(count))) return count;
    return `0x${(highest + 1).toString(16)}`;
  }

  private async forward(chain: Chain, method: string, args: unknown[]): Promise<unknown> {
    try {
      return await chain.rpc.call(method, args);
    } catch (err) {
      if (err instanceof RpcError) throw new RpcFault(err.code, err.detail, err.data);
      if (err instanceof RpcUnavailable) throw new RpcFault(JsonRpcCode.Unavailable, `the chain's node did not answer (${err.detail})`);
      throw err;
    }
  }

  private async read(chain: Chain, calls: { method: string; params: unknown[] }[]): Promise<unknown[]> {
    try {
      return await chain.rpc.all(calls);
    } catch (err) {
      if (err instanceof RpcError) throw new RpcFault(JsonRpcCode.Unavailable, `the chain's node refused ${err.method}: ${err.detail}`);
      if (err instanceof RpcUnavailable) throw new RpcFault(JsonRpcCode.Unavailable, `the chain's node did not answer (${err.detail})`);
      throw err;
    }
  }
}
