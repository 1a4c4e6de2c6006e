import { Inject, Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

/** A private transaction as the auction and crediting read it. */
export interface PrivateTx {
  chainId: number;
  hash: string;
  sourceId: string;
  sender: string;
  nonce: number;
  raw: string;
  firstBlock: bigint;
  maxBlock: bigint;
  useMempool: boolean;
  hintJson: string;
  hintPublished: boolean;
  status: string;
  receivedAt: Date;
}

interface Row {
  chain_id: number;
  hash: string;
  source_id: string;
  sender: string;
  nonce: string;
  raw: string;
  first_block: string;
  max_block: string;
  use_mempool: boolean;
  hint_json: string;
  hint_published_at: Date | null;
  status: string;
  received_at: Date;
}

const COLUMNS = 'chain_id, hash, source_id, sender, nonce, raw, first_block, max_block, use_mempool, hint_json, hint_published_at, status, received_at';

const toTx = (r: Row): PrivateTx => ({
  chainId: r.chain_id,
  hash: r.hash,
  sourceId: r.source_id,
  sender: r.sender,
  nonce: Number(r.nonce),
  raw: r.raw,
  firstBlock: BigInt(r.first_block),
  maxBlock: BigInt(r.max_block),
  useMempool: r.use_mempool,
  hintJson: r.hint_json,
  hintPublished: r.hint_published_at !== null,
  status: r.status,
  receivedAt: r.received_at,
});

export type InsertOutcome = 'inserted' | 'duplicate' | 'nonce_taken';

/** The only writer of `orderflow.private_txs`. */
@Injectable()
export class PrivateTxsRepository {
  constructor(@Inject(DataSource) private readonly db: DataSource) {}

  /** Stores a new pending transaction; the same hash again is a duplicate, another pending one of the sender at its nonce a conflict. */
  async insert(tx: {
    chainId: number;
    hash: string;
    sourceId: string;
    tenantId: string;
    sender: string;
    nonce: number;
    raw: string;
    hints: string[];
    firstBlock: bigint;
    maxBlock: bigint;
    useMempool: boolean;
    hintJson: string;
  }): Promise<InsertOutcome> {
    try {
      const rows: unknown[] = await this.db.query(
        `INSERT INTO orderflow.private_txs (chain_id, hash, source_id, tenant_id, sender, nonce, raw, hints, first_block, max_block, use_mempool, hint_json)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
         ON CONFLICT (chain_id, hash) DO NOTHING RETURNING 1`,
        [
          tx.chainId,
          tx.hash,
          tx.sourceId,
          tx.tenantId,
          tx.sender,
          tx.nonce,
          tx.raw,
          tx.hints.join(','),
          tx.firstBlock.toString(),
          tx.maxBlock.toString(),
          tx.useMempool,
          tx.hintJson,
        ],
      );
      return rows.length === 1 ? 'inserted' : 'duplicate';
    } catch (err) {
      if ((err as { driverError?: { code?: string; constraint?: string } }).driverError?.constraint === 'private_txs_sender_nonce_key') return 'nonce_taken';
      throw err;
    }
  }

  async find(chainId: number, hash: string): Promise<PrivateTx | null> {
    const rows: Row[] = await this.db.query(`SELECT ${COLUMNS} FROM orderflow.private_txs WHERE chain_id = $1 AND hash = $2`, [chainId, hash]);
    return rows[0] ? toTx(rows[0]) : null;
  }

  /** The transaction with this hash on any chain (the pending one first). */
  async findByHash(hash: string): Promise<PrivateTx | null> {
    const rows: Row[] = await this.db.query(
      `SELECT ${COLUMNS} FROM orderflow.private_txs WHERE hash = $1 ORDER BY (status = 'pending') DESC, received_at DESC LIMIT 1`,
      [hash],
    );
    return rows[0] ? toTx(rows[0]) : null;
  }

  /** The pending transaction of `sender` at `nonce`, if any. */
  async pendingAt(chainId: number, sender: string, nonce: number): Promise<PrivateTx | null> {
    const rows: Row[] = await this.db.query(
      `SELECT ${COLUMNS} FROM orderflow.private_txs WHERE chain_id = $1 AND sender = $2 AND nonce = $3 AND status = 'pending'`,
      [chainId, sender, nonce],
    );
    return rows[0] ? toTx(rows[0]) : null;
  }

  /** The highest nonce of the sender's pending private transactions, or null. */
  async highestPendingNonce(chainId: number, sender: string): Promise<number | null> {
    const rows: { n: string | null }[] = await this.db.query(
      `SELECT max(nonce)::text AS n FROM orderflow.private_txs WHERE chain_id = $1 AND sender = $2 AND status = 'pending'`,
      [chainId, sender],
    );
    return rows[0]?.n == null ? null : Number(rows[0].n);
  }

  async pending(chainId: number): Promise<PrivateTx[]> {
    const rows: Row[] = await this.db.query(`SELECT ${COLUMNS} FROM orderflow.private_txs WHERE chain_id = $1 AND status = 'pending' ORDER BY received_at`, [
      chainId,
    ]);
    return rows.map(toTx);
  }

  /** Transactions included at or after `fromBlock` (not final yet): their block and its hash as recorded. */
  async includedSince(chainId: number, fromBlock: bigint): Promise<{ hash: string; blockNumber: bigint; blockHash: string }[]> {
    const rows: { hash: string; block_number: string; block_hash: string }[] = await this.db.query(
      `SELECT hash, block_number, block_hash FROM orderflow.private_txs WHERE chain_id = $1 AND status = 'included' AND block_number >= $2`,
      [chainId, fromBlock.toString()],
    );
    return rows.map((r) => ({ hash: r.hash, blockNumber: BigInt(r.block_number), blockHash: r.block_hash }));
  }

  async markHintPublished(chainId: number, hash: string): Promise<void> {
    await this.db.query(`UPDATE orderflow.private_txs SET hint_published_at = now() WHERE chain_id = $1 AND hash = $2 AND hint_published_at IS NULL`, [
      chainId,
      hash,
    ]);
  }

  /**
   * pending → included in `blockNumber`, with `alsoInTx` (the capture, if a winning backrun
   * landed) in the same transaction; false (and nothing written) when it was not pending.
   */
  async included(chainId: number, hash: string, blockNumber: bigint, blockHash: string, alsoInTx: (tx: EntityManager) => Promise<void>): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const rows: unknown[] = await tx.query(
        `UPDATE orderflow.private_txs SET status = 'included', block_number = $3, block_hash = $4, updated_at = now()
         WHERE chain_id = $1 AND hash = $2 AND status = 'pending' RETURNING 1`,
        [chainId, hash, blockNumber.toString(), blockHash],
      );
      if (rows.length === 0) return false;
      await alsoInTx(tx);
      return true;
    });
  }

  /** included → pending again: its block was reorged away; `alsoInTx` (forgetting its capture) in the same transaction. */
  async reorged(chainId: number, hash: string, alsoInTx: (tx: EntityManager) => Promise<void>): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(
        `UPDATE orderflow.private_txs SET status = 'pending', block_number = NULL, block_hash = NULL, updated_at = now()
         WHERE chain_id = $1 AND hash = $2 AND status = 'included'`,
        [chainId, hash],
      );
      await alsoInTx(tx);
    });
  }

  /** pending → expired (or `public`: sent to the mempool after). */
  async markExpired(chainId: number, hash: string, status: 'expired' | 'public'): Promise<boolean> {
    const rows: unknown[] = await this.db.query(
      `UPDATE orderflow.private_txs SET status = $3, updated_at = now() WHERE chain_id = $1 AND hash = $2 AND status = 'pending' RETURNING 1`,
      [chainId, hash, status],
    );
    return rows.length === 1;
  }

  async ping(): Promise<void> {
    await this.db.query('SELECT 1');
  }
}
