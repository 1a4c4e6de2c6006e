import { Inject, Injectable } from '@nestjs/common';
import { JsonRpcCode, type SimulatedCall } from '@tradeinfra/contracts';
import { RpcFault } from '../common/json-rpc.js';
import { SimulationClient } from '../common/nats-io.js';
import { ENV, type OrderflowServiceEnv } from '../config/env.js';
import type { DecodedTx } from '../intake/transaction-checks.js';
import { judgeBundle, type SimulatedBackrun, type Verdict } from './bundle-verdict.js';

export interface BundleSimulation {
  verdict: Verdict;
  /** The block whose state it ran on. */
  block: bigint;
  target: SimulatedCall;
  backruns: SimulatedBackrun[];
}

const call = (tx: DecodedTx) => ({ from: tx.from, to: tx.to, data: tx.data, value: tx.value.toString(), gas: tx.gasLimit.toString(), nonce: tx.nonce });

/** A bundle on the pending state right behind its target (the state after `block`, the target first), and its verdict. */
@Injectable()
export class BundleSimulator {
  constructor(
    private readonly simulation: SimulationClient,
    @Inject(ENV) private readonly env: OrderflowServiceEnv,
  ) {}

  async simulate(
    chainId: number,
    beneficiary: string,
    target: DecodedTx,
    backruns: { tx: DecodedTx; canRevert: boolean }[],
    block: bigint,
  ): Promise<BundleSimulation> {
    const request = (txs: DecodedTx[]) =>
      this.simulation.simulate({ chainId, blockNumber: block.toString(), calls: txs.map(call) }, this.env.ORDERFLOW_SIM_TIMEOUT_MS).catch((err: Error) => {
        // A nonce that does not follow its sender's is the bundle's fault; anything else is ours.
        if (/Nonce mismatch/i.test(err.message))
          throw new RpcFault(JsonRpcCode.Rejected, `the bundle does not simulate: ${err.message.replace(/^simulation: (Error: )?/, '')}`);
        throw new RpcFault(JsonRpcCode.Unavailable, `the bundle could not be simulated now: ${err.message}`);
      });
    const [bundle, alone] = await Promise.all([request([target, ...backruns.map((b) => b.tx)]), request([target])]);
    const simulated = backruns.map((b, i) => ({ ...b, call: bundle.calls[i + 1]! }));
    return {
      verdict: judgeBundle(beneficiary, bundle.calls[0]!, alone.calls[0]!, simulated),
      block: BigInt(bundle.blockNumber),
      target: bundle.calls[0]!,
      backruns: simulated,
    };
  }
}
