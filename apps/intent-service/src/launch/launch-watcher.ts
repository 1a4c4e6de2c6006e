import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { GET_RESERVES } from '@tradeinfra/contracts';
import { ADVISORY_LOCKS } from '@tradeinfra/service-kit';
import { DataSource, type EntityManager } from 'typeorm';
import { PeriodicTask } from '../common/periodic-task.js';
import { ENV, type IntentServiceEnv, type WatchedChain } from '../config/env.js';
import { Executor } from '../execution/executor.js';
import { ChainRpc, RpcUnavailable } from './chain-rpc.js';
import { NewHeads } from './new-heads.js';

/** keccak256("PairCreated(address,address,address,uint256)") and keccak256("Mint(address,uint256,uint256)"). */
export const PAIR_CREATED_TOPIC = '0x0d3648bd0f6ba80134a33ba9275ac585d9d315f0ad8355cddefde31afa28d0e9';
export const MINT_TOPIC = '0x4c209b5fc8ad50758f13e2e1088ba56a560dff690a1c6fef26394f4c03821c4f';
const GET_PAIR = '0xe6a43905';
const ZERO_ADDRESS = `0x${'0'.repeat(40)}`;
/** Stored block hashes per chain: how deep a reorg the watcher can follow. */
const KEPT_BLOCKS = 64;
/** The advisory lock class that lets one replica watch a chain at a time. */
const LOCK_CLASS = ADVISORY_LOCKS.launchWatcher;

interface RpcLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  logIndex: string;
}

export interface Launch {
  token: string;
  pair: string;
  blockNumber: bigint;
  blockHash: string;
}

/** statusReason of a chain's waiting intents while its node cannot be reached. */
export const CHAIN_UNREACHABLE = 'chain_unreachable';

/** A failure of the node (HTTP, timeout, refused connection), as opposed to one of the database. */
function isRpcFailure(err: unknown): boolean {
  return err instanceof RpcUnavailable;
}

const hex = (n: bigint) => `0x${n.toString(16)}`;
const word = (address: string) => address.slice(2).toLowerCase().padStart(64, '0');
const addressOf = (w: string) => `0x${w.slice(-40)}`.toLowerCase();

/**
 * Follows each configured chain block by block (polling every LAUNCH_POLL_INTERVAL_MS, and at
 * once on every head a `WS_URL_<id>` subscription announces) and records the first liquidity of a pending
 * intent's token: the token's pair with the wrapped native token on the chain's DEX factory
 * (Uniswap-V2-style `PairCreated`, then the pair's first `Mint`; a pair that already holds
 * reserves counts as launched). The block cursor lives in Postgres, updated in the same
 * transaction as the launches, so a restart resumes where it stopped without missing or
 * repeating a block; the hashes of recent blocks let it step back over a reorg (dropping what
 * it saw in the orphaned blocks). One replica watches a chain at a time (advisory lock).
 */
@Injectable()
export class LaunchWatcher implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(LaunchWatcher.name);
  private readonly tasks: PeriodicTask[];
  private readonly heads: NewHeads[] = [];
  /**
   * Chains whose node failed the last poll; at start every chain, so that the first good poll
   * clears a note a replica that has since stopped left behind.
   */
  private readonly unreachable: Set<number>;
  /**
   * Per chain, token → its pair (or null: none when first looked up). A token is looked up
   * once; pairs created later arrive through PairCreated logs, and pair addresses are
   * deterministic (CREATE2), so a reorg cannot make a remembered one wrong.
   */
  private readonly pairOf = new Map<number, Map<string, string | null>>();

  constructor(
    @Inject(DataSource) private readonly db: DataSource,
    @Inject(ENV) private readonly env: IntentServiceEnv,
    private readonly executor: Executor,
  ) {
    this.unreachable = new Set(env.watchedChains.map((c) => c.chainId));
    this.tasks = env.watchedChains.map((chain) => {
      const rpc = new ChainRpc(chain.rpcUrl);
      const task = new PeriodicTask(`launch watcher (chain ${chain.chainId})`, env.LAUNCH_POLL_INTERVAL_MS, () => this.poll(chain, rpc), this.logger);
      if (chain.wsUrl) this.heads.push(new NewHeads(chain.wsUrl, () => task.wake(), this.logger));
      return task;
    });
  }

  onApplicationBootstrap(): void {
    for (const task of this.tasks) task.start();
    for (const heads of this.heads) heads.start();
    if (this.tasks.length > 0) this.logger.log(`watching chains ${this.env.watchedChains.map((c) => c.chainId).join(', ')} for launches`);
  }

  async onModuleDestroy(): Promise<void> {
    for (const heads of this.heads) heads.stop();
    await Promise.all(this.tasks.map((t) => t.stop()));
  }

  /**
   * One step; true when more blocks are waiting (or a reorg was just undone). After a step that
   * moved the cursor, the executor runs at once (new launches to act on, buys to follow).
   */
  async poll(chain: WatchedChain, rpc: ChainRpc): Promise<boolean> {
    let result: { more: boolean; advanced: boolean };
    try {
      result = await this.step(chain, rpc);
    } catch (err) {
      if (isRpcFailure(err)) await this.noteUnreachable(chain.chainId, true);
      throw err;
    }
    if (this.unreachable.has(chain.chainId)) await this.noteUnreachable(chain.chainId, false);
    if (result.advanced) this.executor.wake(chain.chainId);
    return result.more;
  }

  /**
   * While the chain's node cannot be reached, its waiting intents say so (`statusReason:
   * chain_unreachable`, kept if they expire meanwhile); the note goes when the node answers again.
   */
  private async noteUnreachable(chainId: number, down: boolean): Promise<void> {
    if (down) {
      this.unreachable.add(chainId);
      await this.db.query(
        `UPDATE intent.intents SET status_reason = $2
         WHERE chain_id = $1 AND status = 'pending' AND phase IS NULL AND status_reason IS NULL`,
        [chainId, CHAIN_UNREACHABLE],
      );
    } else {
      await this.db.query(`UPDATE intent.intents SET status_reason = NULL WHERE chain_id = $1 AND status = 'pending' AND status_reason = $2`, [
        chainId,
        CHAIN_UNREACHABLE,
      ]);
      this.unreachable.delete(chainId);
    }
  }

  private step(chain: WatchedChain, rpc: ChainRpc): Promise<{ more: boolean; advanced: boolean }> {
    const idle = { more: false, advanced: false };
    return this.db.transaction(async (tx) => {
      const [{ locked }] = await tx.query('SELECT pg_try_advisory_xact_lock($1, $2) AS locked', [LOCK_CLASS, chain.chainId]);
      if (!locked) return idle;
      const head = BigInt(await rpc.call<string>('eth_blockNumber', []));
      const seenAt = new Date();
      const recent: { number: string; hash: string }[] = await tx.query(
        'SELECT number, hash FROM intent.chain_blocks WHERE chain_id = $1 ORDER BY number DESC LIMIT $2',
        [chain.chainId, KEPT_BLOCKS],
      );
      if (recent.length === 0) {
        await this.remember(tx, chain, rpc, head);
        return { more: false, advanced: true };
      }
      if (!(await this.canonical(rpc, recent[0]!))) {
        await this.undoReorg(tx, chain, rpc, recent);
        return { more: true, advanced: false };
      }
      const from = BigInt(recent[0]!.number) + 1n;
      if (from > head) return idle;
      const to = head - from + 1n > BigInt(this.env.LAUNCH_MAX_BLOCK_RANGE) ? from + BigInt(this.env.LAUNCH_MAX_BLOCK_RANGE) - 1n : head;
      const tokens: { token: string }[] = await tx.query(
        `SELECT DISTINCT lower(i.token_address) AS token FROM intent.intents i
         WHERE i.chain_id = $1 AND i.status = 'pending'
           AND NOT EXISTS (SELECT 1 FROM intent.launches l WHERE l.chain_id = $1 AND l.token = lower(i.token_address))`,
        [chain.chainId],
      );
      if (tokens.length > 0) {
        for (const launch of await this.detect(chain, rpc, new Set(tokens.map((t) => t.token)), from, to)) {
          await tx.query(
            `INSERT INTO intent.launches (chain_id, token, pair, block_number, block_hash, seen_at) VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (chain_id, token) DO NOTHING`,
            [chain.chainId, launch.token, launch.pair, launch.blockNumber.toString(), launch.blockHash, seenAt],
          );
          this.logger.log(`launch on chain ${chain.chainId}: token ${launch.token} (pair ${launch.pair}) in block ${launch.blockNumber}`);
        }
      }
      await this.remember(tx, chain, rpc, to);
      return { more: to < head, advanced: true };
    });
  }

  /** Launches of `tokens` seen in blocks from..to. */
  async detect(chain: WatchedChain, rpc: ChainRpc, tokens: Set<string>, from: bigint, to: bigint): Promise<Launch[]> {
    const pairs = new Map<string, string>(); // pair → token
    const known = this.pairOf.get(chain.chainId) ?? new Map<string, string | null>();
    this.pairOf.set(chain.chainId, known);
    const created = await rpc.call<RpcLog[]>('eth_getLogs', [{ fromBlock: hex(from), toBlock: hex(to), address: chain.factory, topics: [PAIR_CREATED_TOPIC] }]);
    for (const log of created) {
      const [t0, t1] = [addressOf(log.topics[1]!), addressOf(log.topics[2]!)];
      const token = t0 === chain.wrappedNative ? t1 : t1 === chain.wrappedNative ? t0 : null;
      if (!token) continue;
      const address = addressOf(log.data.slice(2, 66));
      known.set(token, address);
      if (tokens.has(token)) pairs.set(address, token);
    }
    // Pairs created before this range (the intent may have been registered after the pair).
    const before = hex(from - 1n);
    const existing = new Set<string>();
    for (const token of tokens) {
      if ([...pairs.values()].includes(token)) continue;
      const remembered = known.get(token);
      if (remembered !== undefined) {
        // A pair seen before (maybe before any intent wanted the token): check its reserves.
        if (remembered) {
          pairs.set(remembered, token);
          existing.add(remembered);
        }
        continue;
      }
      const result = await rpc.call<string>('eth_call', [{ to: chain.factory, data: `${GET_PAIR}${word(token)}${word(chain.wrappedNative)}` }, before]);
      // No factory code at that address answers "0x": no pair either.
      const pair = result && result.length >= 66 ? addressOf(result) : ZERO_ADDRESS;
      known.set(token, pair === ZERO_ADDRESS ? null : pair);
      if (pair !== ZERO_ADDRESS) {
        pairs.set(pair, token);
        existing.add(pair);
      }
    }
    if (pairs.size === 0) return [];
    const launches = new Map<string, Launch>();
    // A pair that already held liquidity before the range launched before we looked.
    for (const pair of existing) {
      const reserves = await rpc.call<string>('eth_call', [{ to: pair, data: GET_RESERVES }, before]);
      if (BigInt(`0x${reserves.slice(2, 66) || '0'}`) > 0n && BigInt(`0x${reserves.slice(66, 130) || '0'}`) > 0n) {
        const block = await rpc.call<{ hash: string }>('eth_getBlockByNumber', [before, false]);
        launches.set(pair, { token: pairs.get(pair)!, pair, blockNumber: from - 1n, blockHash: block.hash });
      }
    }
    const mints = await rpc.call<RpcLog[]>('eth_getLogs', [{ fromBlock: hex(from), toBlock: hex(to), address: [...pairs.keys()], topics: [MINT_TOPIC] }]);
    mints.sort((a, b) => Number(BigInt(a.blockNumber) - BigInt(b.blockNumber)) || Number(BigInt(a.logIndex) - BigInt(b.logIndex)));
    for (const log of mints) {
      const pair = log.address.toLowerCase();
      if (launches.has(pair) || !pairs.has(pair)) continue;
      launches.set(pair, { token: pairs.get(pair)!, pair, blockNumber: BigInt(log.blockNumber), blockHash: log.blockHash });
    }
    return [...launches.values()];
  }

  private async canonical(rpc: ChainRpc, block: { number: string; hash: string }): Promise<boolean> {
    const onChain = await rpc.call<{ hash: string } | null>('eth_getBlockByNumber', [hex(BigInt(block.number)), false]);
    return onChain?.hash === block.hash;
  }

  /** Steps back to the newest remembered block still on the chain, forgetting what came after. */
  private async undoReorg(tx: EntityManager, chain: WatchedChain, rpc: ChainRpc, recent: { number: string; hash: string }[]): Promise<void> {
    let keep: bigint | null = null;
    for (const block of recent.slice(1)) {
      if (await this.canonical(rpc, block)) {
        keep = BigInt(block.number);
        break;
      }
    }
    const back = keep ?? BigInt(recent[recent.length - 1]!.number) - 1n;
    await tx.query('DELETE FROM intent.chain_blocks WHERE chain_id = $1 AND number > $2', [chain.chainId, back.toString()]);
    const undone: { token: string }[] = await tx.query('DELETE FROM intent.launches WHERE chain_id = $1 AND block_number > $2 RETURNING token', [
      chain.chainId,
      back.toString(),
    ]);
    if (keep === null) await this.remember(tx, chain, rpc, back);
    this.logger.warn(
      `reorg on chain ${chain.chainId}: back to block ${back}${undone.length ? `, launches undone: ${undone.map((u) => u.token).join(', ')}` : ''}`,
    );
  }

  private async remember(tx: EntityManager, chain: WatchedChain, rpc: ChainRpc, number: bigint): Promise<void> {
    const block = await rpc.call<{ hash: string }>('eth_getBlockByNumber', [hex(number), false]);
    await tx.query(
      `INSERT INTO intent.chain_blocks (chain_id, number, hash) VALUES ($1, $2, $3) ON CONFLICT (chain_id, number) DO UPDATE SET hash = EXCLUDED.hash`,
      [chain.chainId, number.toString(), block.hash],
    );
    await tx.query('DELETE FROM intent.chain_blocks WHERE chain_id = $1 AND number < $2', [chain.chainId, (number - BigInt(KEPT_BLOCKS * 4)).toString()]);
  }
}
