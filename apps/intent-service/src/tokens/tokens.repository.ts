import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { DeployerFacts } from './deployer.js';

/** Most lookups of one token before it is given up (a node without history, a token never deployed). */
export const MAX_LOOKUPS = 12;

/**
 * `intent.tokens`, its one writer: the deployer facts of the tokens intents name (the record's
 * `token`), and when each was last looked up.
 */
@Injectable()
export class TokensRepository {
  constructor(@Inject(DataSource) private readonly db: DataSource) {}

  /**
   * Tokens whose next lookup is due, at most `limit`: tokens of pending intents on `chainIds` never
   * looked up, and every token looked up before whose facts are not settled, 2^attempts seconds
   * after its last lookup (at most 5 min), whatever its intents' status since: a first lookup that
   * failed is tried again after the buys completed (at most MAX_LOOKUPS times in all).
   */
  async due(chainIds: number[], limit: number): Promise<{ chainId: number; token: string; attempts: number }[]> {
    const rows: { chain_id: number; token: string; attempts: number }[] = await this.db.query(
      `(SELECT DISTINCT i.chain_id, lower(i.token_address) AS token, 0 AS attempts
        FROM intent.intents i
        LEFT JOIN intent.tokens t ON t.chain_id = i.chain_id AND t.token = lower(i.token_address)
        WHERE i.status = 'pending' AND i.chain_id = ANY($1) AND t.token IS NULL
        LIMIT $2)
       UNION ALL
       (SELECT t.chain_id, t.token, t.attempts
        FROM intent.tokens t
        WHERE t.chain_id = ANY($1) AND NOT t.settled AND t.looked_up_at < now() - make_interval(secs => least(300, power(2, t.attempts)))
        LIMIT $2)
       LIMIT $2`,
      [chainIds, limit],
    );
    return rows.map((r) => ({ chainId: r.chain_id, token: r.token, attempts: r.attempts }));
  }

  /** Records a lookup: its facts (settled), or none yet (`settled` when it will not be looked up again). */
  async record(chainId: number, token: string, facts: DeployerFacts | null, settled: boolean): Promise<void> {
    await this.db.query(
      `INSERT INTO intent.tokens AS t (chain_id, token, deployer, deployer_tx_hash, deployer_block_number, deployer_timestamp, attempts, looked_up_at, settled)
       VALUES ($1, $2, $3, $4, $5, $6, 1, now(), $7)
       ON CONFLICT (chain_id, token) DO UPDATE SET deployer = EXCLUDED.deployer, deployer_tx_hash = EXCLUDED.deployer_tx_hash,
         deployer_block_number = EXCLUDED.deployer_block_number, deployer_timestamp = EXCLUDED.deployer_timestamp,
         attempts = t.attempts + 1, looked_up_at = now(), settled = EXCLUDED.settled OR t.attempts + 1 >= $8`,
      [
        chainId,
        token.toLowerCase(),
        facts?.deployer ?? null,
        facts?.txHash ?? null,
        facts ? facts.blockNumber.toString() : null,
        facts ? facts.timestamp.toString() : null,
        settled || facts !== null,
        MAX_LOOKUPS,
      ],
    );
  }
}
