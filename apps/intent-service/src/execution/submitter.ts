import { BundleRelays } from '@tradeinfra/service-kit';
import { RpcUnavailable, type ChainRpc } from '../chain/chain-rpc.js';
import { type NodeTraits } from '../chain/node-traits.js';
import { type WsSender } from '../chain/ws-sender.js';

/** One signed buy to send. */
export interface Submission {
  intentId: string;
  raw: string;
  hash: string;
}

/** Per submission: null when accepted, else why it was refused. */
export type SubmitOutcome = Map<string, string | null>;

/**
 * Where signed buys go. `submit` is called for the first attempt and again for every later
 * block the buy may still land in (`targetBlock` is the block it is meant for).
 */
export interface Submitter {
  readonly kind: 'rpc' | 'bundle';
  /**
   * `behind`: the signed bytes of a pending launch the buys must follow. A bundle submitter then
   * sends one bundle, the launch first and the buys after it in the order given.
   */
  submit(submissions: Submission[], targetBlock: bigint, behind?: string): Promise<SubmitOutcome>;
}

/** Errors that mean the node already has (or already mined) the transaction: not a refusal. */
const ALREADY = /already known|already imported|known transaction|nonce too low|already exists/i;

/**
 * `eth_sendRawTransaction` on the chain's own node, in the order given: the order the buys were
 * checked in, which their quotes assume. Where the node handles a batch's calls in order
 * (`NodeTraits.orderedBatches`: geth) all of them in one batch; elsewhere one after the other,
 * each answered before the next is sent (hardhat answers a batch's calls concurrently, so they
 * would reach its pool in any order): over the chain's WebSocket where it has one (`WS_URL_<id>`,
 * about half HTTP's cost per call), else over HTTP.
 */
export class RpcSubmitter implements Submitter {
  readonly kind = 'rpc';

  constructor(
    private readonly rpc: Pick<ChainRpc, 'call' | 'batch'>,
    private readonly traits: () => Promise<Pick<NodeTraits, 'orderedBatches'>>,
    /** The chain's WebSocket, for one-by-one sends; null: HTTP. */
    private readonly ws: Pick<WsSender, 'send'> | null = null,
  ) {}

  async submit(submissions: Submission[]): Promise<SubmitOutcome> {
    const outcome: SubmitOutcome = new Map();
    const refusal = (message: string) => (ALREADY.test(message) ? null : message);
    if (submissions.length > 1 && (await this.traits()).orderedBatches) {
      const replies = await this.rpc.batch(submissions.map((s) => ({ method: 'eth_sendRawTransaction', params: [s.raw] })));
      // A call the batch did not answer (RpcUnavailable) is not known refused: it is followed like an accepted one.
      submissions.forEach((s, i) => {
        const error = replies[i]?.error;
        outcome.set(s.intentId, error && !(error instanceof RpcUnavailable) ? refusal(error.message) : null);
      });
      return outcome;
    }
    let ws = this.ws;
    const send = async (raw: string): Promise<unknown> => {
      if (ws) {
        try {
          return await ws.send(raw);
        } catch (err) {
          // The WebSocket down: this buy and the rest over HTTP (one it did take is "already known" there).
          if (!(err instanceof RpcUnavailable)) throw err;
          ws = null;
        }
      }
      return this.rpc.call<string>('eth_sendRawTransaction', [raw]);
    };
    for (const s of submissions) {
      try {
        await send(s.raw);
        outcome.set(s.intentId, null);
      } catch (err) {
        if (err instanceof RpcUnavailable) throw err;
        outcome.set(s.intentId, refusal((err as Error).message));
      }
    }
    return outcome;
  }
}

/**
 * `eth_sendBundle` to every configured relay (Flashbots-style, `X-Flashbots-Signature` signed by
 * the relay identity key), one bundle per buy (or one behind a pending launch), for exactly `targetBlock`, with no reverting
 * transaction allowed: a buy that would revert is not included, so it costs nothing. Accepted
 * when at least one relay accepted it.
 */
export class BundleSubmitter implements Submitter {
  readonly kind = 'bundle';
  private readonly relays: BundleRelays;

  constructor(relays: string[], identityKey: string | null, timeoutMs = 2_000) {
    this.relays = new BundleRelays(relays, identityKey, timeoutMs);
  }

  async submit(submissions: Submission[], targetBlock: bigint, behind?: string): Promise<SubmitOutcome> {
    const outcome: SubmitOutcome = new Map(submissions.map((s) => [s.intentId, 'no relay accepted the bundle']));
    if (submissions.length === 0) return outcome;
    // Behind a pending launch: one bundle, the launch first (the only transaction not ours), then
    // the buys in checking order; its answer stands for every buy in it.
    if (behind) {
      const [answer] = await this.relays.send([{ txs: [behind, ...submissions.map((s) => s.raw)], blockNumber: targetBlock }]);
      for (const s of submissions) outcome.set(s.intentId, answer ?? null);
      return outcome;
    }
    const answers = await this.relays.send(submissions.map((s) => ({ txs: [s.raw], blockNumber: targetBlock })));
    submissions.forEach((s, i) => outcome.set(s.intentId, answers[i] ?? null));
    return outcome;
  }
}
