import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MerkleSigningRequest, SigningBatchRequest, SigningRequest, UnsignedTransaction } from '@tradeinfra/contracts';
import { ethersTransaction } from '@tradeinfra/service-kit';
import { keccak256, Signature, type HDNodeWallet, type Transaction, type Wallet } from 'ethers';

/** How the signing webhook answers for one wallet. */
export type SignerBehaviour =
  | 'sign'
  /** Signs with another key than the wallet's. */
  | 'wrong-key'
  /** Signs the transaction with a different value. */
  | 'tamper'
  | 'http-500'
  | 'not-json'
  /** Answers 403: will not sign this (in a batch: answers null for this buy). */
  | 'refuse'
  | { delayMs: number }
  /** Signs once the request's deadline has passed by this many ms. */
  | { pastDeadlineMs: number }
  /** Waits for the promise, then signs. */
  | { gate: () => Promise<void> };

export interface ReceivedSigningRequest {
  /** The request; for one buy of a SigningBatchRequest, that buy as a SigningRequest of its own (the batch's id). */
  request: SigningRequest;
  /** The SigningBatchRequest the buy came in, or null for a SigningRequest. */
  batch: SigningBatchRequest | null;
  /** Merkle's signature webhook request as it came (then `request` is its transaction, decimal, from the intent's wallet), or null. */
  merkle: MerkleSigningRequest | null;
  /** Whether the HMAC signature verified with the tenant's secret. */
  verified: boolean;
  headers: IncomingHttpHeaders;
  /** When it arrived (unix ms). */
  receivedAt: number;
  /** Hashes of the transactions it answered with (none when it did not sign). */
  answeredHashes: string[];
}

/**
 * Signs a request's transactions (in order, each by its `from`'s key); `signMs` is the time spent
 * signing (without any queueing before it).
 */
export type TransactionSigner = (txs: UnsignedTransaction[]) => Promise<{ signedTransactions: string[]; signMs: number }>;

/** What one request took (for benchmarks): arrival and answer in unix ms, handler time in ms. */
export interface SigningRecord {
  arrive: number;
  done: number;
  ms: number;
  status: number;
  signMs?: number;
  /** Time between the request being parsed and its signing starting (a busy signer pool). */
  waitMs?: number;
  intentId?: string;
}

export interface SigningStats {
  requests: number;
  hmacFailures: number;
  signErrors: number;
  badRequests: number;
  records: SigningRecord[];
}

/** Signs a 32-byte hash with `wallet`'s key: Merkle's 65-byte `r ‖ s ‖ v` (v 0x1b / 0x1c). */
export type HashSigner = (wallet: string, hash: string) => Promise<{ signature: string; signMs: number }>;

export interface SigningWebhookOptions {
  /** Signs the `sign` behaviour's transactions (default: ethers with the wallets' keys). */
  signer?: TransactionSigner;
  /** Signs Merkle's `hash` for the `sign` behaviour (default: ethers with the wallet's key). */
  hashSigner?: HashSigner;
  /** Port on 127.0.0.1 (default: a free one). */
  port?: number;
  /** Keep every request in `received` (default true; a long benchmark turns it off). */
  keepRequests?: boolean;
}

/**
 * A signing webhook as a client would run it: checks the request's HMAC (the tenant's secret),
 * signs every transaction with the wallet's key and answers `{signedTransactions}`; takes
 * Merkle's signature webhook requests too (`{intentId, launch, tx, rawTx, hash}`, answered
 * `{signature}`), for the intents it was told the wallet of ({@link expectIntents}, or
 * `POST /__intents` with `[{intentId, wallet}]`: Merkle's request does not name the wallet); and
 * SigningBatchRequests (one entry per buy, in order; `null` for a buy whose wallet's
 * behaviour is `refuse`; `http-500`, `not-json` and delays apply to the whole batch). Per-wallet
 * behaviours simulate broken or hostile signers. `GET /__stats` answers {@link SigningStats}
 * since the last call (and starts them over), as {@link takeStats} does.
 */
export class SigningWebhook {
  readonly received: ReceivedSigningRequest[] = [];
  /** Per wallet (lowercase address), how requests for it are answered (default: signed). */
  readonly behaviour = new Map<string, SignerBehaviour>();
  /** Per route: requests to `<url>/<route>` are answered so, whatever the wallet (see urlFor). */
  readonly routes = new Map<string, SignerBehaviour>();
  private readonly keys = new Map<string, Wallet | HDNodeWallet>();
  /** Per intent id, its wallet (lowercase): what a Merkle client knows of its own intents. */
  private readonly intentWallets = new Map<string, string>();
  private readonly signer: TransactionSigner;
  private readonly hashSigner: HashSigner;
  private stats: SigningStats = emptyStats();
  private server!: Server;
  /** The URL to give as an intent's `webhookUrl`. */
  url = '';
  port = 0;

  constructor(
    private readonly secret: () => string,
    wallets: Array<Wallet | HDNodeWallet>,
    private readonly options: SigningWebhookOptions = {},
  ) {
    for (const w of wallets) this.keys.set(w.address.toLowerCase(), w);
    this.signer = options.signer ?? ((txs) => this.signWithKeys(txs, 'sign'));
    this.hashSigner =
      options.hashSigner ??
      ((wallet, hash) => {
        const t0 = performance.now();
        const key = this.keys.get(wallet);
        if (!key) return Promise.reject(new Error(`no key for ${wallet}`));
        return Promise.resolve({ signature: key.signingKey.sign(hash).serialized, signMs: performance.now() - t0 });
      });
  }

  /** The wallets of intents whose Merkle signing requests it will answer. */
  expectIntents(intents: { intentId: string; wallet: string }[]): void {
    for (const i of intents) this.intentWallets.set(i.intentId, i.wallet.toLowerCase());
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const arrive = Date.now();
      const t0 = performance.now();
      if (req.method === 'GET' && req.url === '/__stats') {
        reply(res, 200, JSON.stringify(this.takeStats()));
        return;
      }
      if (req.method === 'POST' && req.url === '/__intents') {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          this.expectIntents(JSON.parse(Buffer.concat(chunks).toString('utf8')) as { intentId: string; wallet: string }[]);
          reply(res, 204, '');
        });
        return;
      }
      void this.handle(req).then(
        ({ status, body, record }) => {
          reply(res, status, body);
          this.stats.records.push({ arrive, done: Date.now(), ms: round3(performance.now() - t0), status, ...record });
        },
        () => {
          res.writeHead(500);
          res.end();
        },
      );
    });
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => this.server.listen(this.options.port ?? 0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    this.url = `http://127.0.0.1:${this.port}/sign`;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  /** The webhook URL whose requests `route`'s behaviour answers. */
  urlFor(route: string): string {
    return `${this.url}/${route}`;
  }

  /** Signs for `wallet` too from now on. */
  addWallet(wallet: Wallet | HDNodeWallet): void {
    this.keys.set(wallet.address.toLowerCase(), wallet);
  }

  requestsFor(intentId: string): ReceivedSigningRequest[] {
    return this.received.filter((r) => r.request.intentId === intentId);
  }

  /** Counters and per-request records since the last call; starts them over. */
  takeStats(): SigningStats {
    const stats = this.stats;
    this.stats = emptyStats();
    return stats;
  }

  private async handle(req: IncomingMessage): Promise<{ status: number; body: string; record?: Partial<SigningRecord> }> {
    const receivedAt = Date.now();
    const route = /^\/sign\/([\w-]+)$/.exec(req.url ?? '')?.[1];
    const routed = route === undefined ? undefined : this.routes.get(route);
    if (route !== undefined && routed === undefined) return { status: 404, body: '{"error":"no such route"}' };
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    this.stats.requests++;
    const body = Buffer.concat(chunks).toString('utf8');
    const timestamp = String(req.headers['x-signing-timestamp'] ?? '');
    const expected = `v1=${createHmac('sha256', this.secret()).update(`${timestamp}.${body}`).digest('hex')}`;
    const given = String(req.headers['x-signing-signature'] ?? '');
    const verified = given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
    let request: SigningRequest | SigningBatchRequest;
    try {
      request = JSON.parse(body) as SigningRequest | SigningBatchRequest;
    } catch {
      if (!verified) this.stats.hmacFailures++;
      else this.stats.badRequests++;
      return verified ? { status: 400, body: '{"error":"not JSON"}' } : { status: 401, body: '{"error":"bad signature"}' };
    }
    if (!('kind' in request) && typeof (request as { hash?: unknown }).hash === 'string') {
      return this.handleMerkle(request as unknown as MerkleSigningRequest, verified, req.headers, receivedAt, routed);
    }
    const batch = request.kind === 'signBatch' ? request : null;
    const items: SigningRequest[] = batch
      ? (batch.requests ?? []).map((r) => ({
          ...r,
          kind: 'sign',
          id: batch.id,
          chainId: batch.chainId,
          launchBlock: batch.launchBlock,
          targetBlock: batch.targetBlock,
          deadline: batch.deadline,
        }))
      : [request as SigningRequest];
    const received = items.map((item): ReceivedSigningRequest => ({
      request: item,
      batch,
      merkle: null,
      verified,
      headers: req.headers,
      receivedAt,
      answeredHashes: [],
    }));
    if (this.options.keepRequests !== false) this.received.push(...received);
    if (!verified) {
      this.stats.hmacFailures++;
      return { status: 401, body: '{"error":"bad signature"}' };
    }
    const behaviours = items.map((item) => routed ?? this.behaviour.get(String(item.wallet).toLowerCase()) ?? 'sign');
    if (behaviours.includes('http-500')) return { status: 500, body: '{"error":"down"}' };
    if (behaviours.includes('not-json')) return { status: 200, body: 'signed!' };
    if (!batch && behaviours[0] === 'refuse') return { status: 403, body: '{"error":"not signing this"}' };
    const wait = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)).unref());
    for (const behaviour of behaviours) {
      if (typeof behaviour === 'object' && 'delayMs' in behaviour) await wait(behaviour.delayMs);
      if (typeof behaviour === 'object' && 'pastDeadlineMs' in behaviour) await wait(request.deadline - Date.now() + behaviour.pastDeadlineMs);
      if (typeof behaviour === 'object' && 'gate' in behaviour) await behaviour.gate();
    }
    const queued = performance.now();
    try {
      // Every buy signed as its wallet's behaviour says; the plainly signed ones in one call of the signer.
      const answers: (string | null)[][] = items.map(() => []);
      const plain: number[] = [];
      let signMs = 0;
      for (let i = 0; i < items.length; i++) {
        const behaviour = behaviours[i];
        const txs = items[i]!.transactions ?? [];
        if (behaviour === 'refuse') answers[i] = txs.map(() => null);
        else if (behaviour === 'wrong-key' || behaviour === 'tamper') {
          const signed = await this.signWithKeys(txs, behaviour);
          answers[i] = signed.signedTransactions;
          signMs += signed.signMs;
        } else plain.push(i);
      }
      if (plain.length > 0) {
        const signed = await this.signer(plain.flatMap((i) => items[i]!.transactions ?? []));
        signMs += signed.signMs;
        let next = 0;
        for (const i of plain) answers[i] = signed.signedTransactions.slice(next, (next += (items[i]!.transactions ?? []).length));
      }
      const signedTransactions = answers.flat();
      const record = {
        signMs: round3(signMs),
        waitMs: round3(performance.now() - queued - signMs),
        intentId: batch ? undefined : (request as SigningRequest).intentId,
      };
      if (this.options.keepRequests !== false) {
        received.forEach((r, i) => r.answeredHashes.push(...answers[i]!.filter((raw): raw is string => raw !== null).map((raw) => keccak256(raw))));
      }
      return { status: 200, body: JSON.stringify({ signedTransactions }), record };
    } catch (err) {
      this.stats.signErrors++;
      const signMs = (err as { signMs?: number }).signMs ?? 0;
      return { status: 500, body: JSON.stringify({ error: (err as Error).message }), record: { signMs: round3(signMs) } };
    }
  }

  /**
   * Merkle's signature webhook: signs `hash` with the intent's wallet (as its behaviour says) and
   * answers `{signature}`. `answeredHashes` holds the hash of the transaction the signature makes.
   */
  private async handleMerkle(
    request: MerkleSigningRequest,
    verified: boolean,
    headers: IncomingHttpHeaders,
    receivedAt: number,
    routed: SignerBehaviour | undefined,
  ): Promise<{ status: number; body: string; record?: Partial<SigningRecord> }> {
    const wallet = this.intentWallets.get(request.intentId) ?? null;
    const tx: UnsignedTransaction = {
      purpose: 'buy',
      type: 2,
      chainId: Number(BigInt(request.tx.chainId)),
      from: wallet ?? '',
      nonce: Number(BigInt(request.tx.nonce)),
      to: request.tx.to,
      value: BigInt(request.tx.value).toString(),
      data: request.tx.data,
      gasLimit: BigInt(request.tx.gas).toString(),
      maxFeePerGas: BigInt(request.tx.maxFeePerGas).toString(),
      maxPriorityFeePerGas: BigInt(request.tx.maxPriorityFeePerGas).toString(),
      accessList: [],
      summary: {} as UnsignedTransaction['summary'],
    };
    const asOurs: SigningRequest = {
      kind: 'sign',
      id: String(headers['x-signing-request-id'] ?? ''),
      intentId: request.intentId,
      chainId: tx.chainId,
      wallet: wallet ?? '',
      launchBlock: request.launch.blockNumber,
      targetBlock: request.launch.blockNumber,
      deadline: 0,
      transactions: [tx],
    };
    const received: ReceivedSigningRequest = { request: asOurs, batch: null, merkle: request, verified, headers, receivedAt, answeredHashes: [] };
    if (this.options.keepRequests !== false) this.received.push(received);
    if (!verified) {
      this.stats.hmacFailures++;
      return { status: 401, body: '{"error":"bad signature"}' };
    }
    if (!wallet) {
      this.stats.badRequests++;
      return { status: 404, body: '{"error":"unknown intent"}' };
    }
    const behaviour = routed ?? this.behaviour.get(wallet) ?? 'sign';
    if (behaviour === 'http-500') return { status: 500, body: '{"error":"down"}' };
    if (behaviour === 'not-json') return { status: 200, body: 'signed!' };
    if (behaviour === 'refuse') return { status: 403, body: '{"error":"not signing this"}' };
    const wait = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)).unref());
    if (typeof behaviour === 'object' && 'delayMs' in behaviour) await wait(behaviour.delayMs);
    if (typeof behaviour === 'object' && 'gate' in behaviour) await behaviour.gate();
    const queued = performance.now();
    try {
      let signature: string;
      let signMs: number;
      if (behaviour === 'wrong-key' || behaviour === 'tamper') {
        const t0 = performance.now();
        const other = [...this.keys.values()].find((k) => k.address.toLowerCase() !== wallet)!;
        // tamper: the wallet's signature of another transaction (one wei more value).
        signature =
          behaviour === 'wrong-key'
            ? other.signingKey.sign(request.hash).serialized
            : this.keys.get(wallet)!.signingKey.sign(unsignedTransaction(tx, true).unsignedHash).serialized;
        signMs = performance.now() - t0;
      } else {
        ({ signature, signMs } = await this.hashSigner(wallet, request.hash));
      }
      if (this.options.keepRequests !== false) {
        const signed = unsignedTransaction(tx);
        signed.signature = Signature.from(signature);
        received.answeredHashes.push(keccak256(signed.serialized));
      }
      const record = { signMs: round3(signMs), waitMs: round3(performance.now() - queued - signMs), intentId: request.intentId };
      return { status: 200, body: JSON.stringify({ signature }), record };
    } catch (err) {
      this.stats.signErrors++;
      return { status: 500, body: JSON.stringify({ error: (err as Error).message }) };
    }
  }

  private async signWithKeys(txs: UnsignedTransaction[], how: 'sign' | 'wrong-key' | 'tamper') {
    const t0 = performance.now();
    const signedTransactions = await Promise.all(
      txs.map((tx) => {
        const key =
          how === 'wrong-key' ? [...this.keys.values()].find((k) => k.address.toLowerCase() !== tx.from.toLowerCase())! : this.keys.get(tx.from.toLowerCase());
        if (!key) throw new Error(`no key for ${tx.from}`);
        return key.signTransaction(unsignedTransaction(tx, how === 'tamper'));
      }),
    );
    return { signedTransactions, signMs: performance.now() - t0 };
  }
}

/** The ethers transaction of a signing request's transaction (`tamper`: one wei more value). */
export function unsignedTransaction(tx: UnsignedTransaction, tamper = false): Transaction {
  const t = ethersTransaction(tx);
  if (tamper) t.value += 1n;
  return t;
}

function emptyStats(): SigningStats {
  return { requests: 0, hmacFailures: 0, signErrors: 0, badRequests: 0, records: [] };
}

function reply(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, status === 204 ? {} : { 'content-type': 'application/json' });
  res.end(body);
}

function round3(v: number): number {
  return Math.round(v * 1000) / 1000;
}
