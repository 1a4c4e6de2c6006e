import type { BulkCancelResult, IntentRecord, SimulationResult } from '@tradeinfra/contracts';
import { IntentEventStream, type EventStreamOptions } from './events.js';
import type {
  CashbackSource,
  CreateIntentInput,
  CreateWalletIntentInput,
  CreateExitInput,
  ListEntriesInput,
  Payout,
  PayoutEntry,
  PayoutTransitionInput,
  Readiness,
  RecordEntryInput,
  RegisterSourceInput,
  RequestPayoutInput,
  RequestAllPayoutsInput,
  AllPayouts,
  SearchIntentsInput,
  ServicesHealth,
  SimulateInput,
} from './types.js';
import { newIdempotencyKey, Transport, type ClientOptions, type CreateOptions, type Page, type RequestOptions } from './transport.js';

const segment = (value: string) => encodeURIComponent(value);

/** A typed client of the tradeinfra HTTP API. */
export class TradeInfraClient {
  /** Intents: create, read, search, cancel, and the live event stream. */
  readonly intents: IntentsApi;
  /** The key your webhooks verify our signatures with. */
  readonly notifications: NotificationsApi;
  /** Payout entries (the ledger). */
  readonly payouts: PayoutsApi;
  /** Cashback: a source's balances, payout requests and their settlement. */
  readonly cashback: CashbackApi;
  /** Sources (admin). */
  readonly sources: SourcesApi;
  private readonly transport: Transport;

  constructor(options: ClientOptions) {
    this.transport = new Transport(options);
    this.intents = new IntentsApi(this.transport);
    this.notifications = new NotificationsApi(this.transport);
    this.payouts = new PayoutsApi(this.transport);
    this.cashback = new CashbackApi(this.transport);
    this.sources = new SourcesApi(this.transport);
  }

  /** `POST /v1/simulate` (scope `simulate`): runs a bundle of calls on a chain's state. Retried like a read (it changes nothing). */
  async simulate(body: SimulateInput, options: RequestOptions = {}): Promise<SimulationResult> {
    return (await this.transport.request<SimulationResult>({ ...options, method: 'POST', path: '/v1/simulate', body, idempotent: true })).data;
  }

  /** `GET /health`: the gateway process answers. */
  async health(options: RequestOptions = {}): Promise<{ status: 'ok' }> {
    return (await this.transport.request<{ status: 'ok' }>({ ...options, method: 'GET', path: '/health', idempotent: true, anonymous: true })).data;
  }

  /** `GET /ready`: this gateway replica's readiness. A 503 is an answer here (`ready: false`), not an error, and is not retried. */
  async ready(options: RequestOptions = {}): Promise<Readiness> {
    const answer = await this.transport.request<Omit<Readiness, 'ready'>>({
      maxAttempts: 1,
      ...options,
      method: 'GET',
      path: '/ready',
      idempotent: true,
      anonymous: true,
      accept: [503],
    });
    return { ready: answer.status === 200, ...answer.data };
  }

  /** `GET /health/services`: each service behind the gateway, up or down, with its latency. */
  async servicesHealth(options: RequestOptions = {}): Promise<ServicesHealth> {
    return (await this.transport.request<ServicesHealth>({ ...options, method: 'GET', path: '/health/services', idempotent: true, anonymous: true })).data;
  }
}

export class IntentsApi {
  constructor(private readonly transport: Transport) {}

  /**
   * `POST /v1/intent` (scope `intents:write`). Every call carries an `Idempotency-Key` (yours,
   * or a new UUID), and every retry of the call the same one: a create retried after a reset
   * connection, a timeout or a 504 returns the intent the first attempt made, never a second one.
   */
  async create(body: CreateIntentInput, options: CreateOptions = {}): Promise<IntentRecord> {
    return this.createAt('/v1/intent', body, options);
  }

  /** `POST /v1/wallet/intent` (scope `intents:write`): an intent pre-signed by the wallet (EIP-712). Idempotent as {@link create}. */
  async createWallet(body: CreateWalletIntentInput, options: CreateOptions = {}): Promise<IntentRecord> {
    return this.createAt('/v1/wallet/intent', body, options);
  }

  /**
   * `POST /v1/exit` (scope `intents:write`): an exit (take-profit, stop-loss, trailing stop,
   * anti-rug), answered as an intent of kind `exit`; read, searched and cancelled like one.
   * Idempotent as {@link create}.
   */
  async createExit(body: CreateExitInput, options: CreateOptions = {}): Promise<IntentRecord> {
    return this.createAt('/v1/exit', body, options);
  }

  private async createAt(path: string, body: unknown, options: CreateOptions): Promise<IntentRecord> {
    const idempotencyKey = options.idempotencyKey ?? newIdempotencyKey();
    return (await this.transport.request<IntentRecord>({ ...options, method: 'POST', path, body, idempotent: true, idempotencyKey })).data;
  }

  /** `POST /v1/intents` (scope `intents:write`): 1 to 100 intents, all stored or none; the records in order. Idempotent as {@link create}. */
  async createBatch(bodies: CreateIntentInput[], options: CreateOptions = {}): Promise<IntentRecord[]> {
    const idempotencyKey = options.idempotencyKey ?? newIdempotencyKey();
    return (await this.transport.request<IntentRecord[]>({ ...options, method: 'POST', path: '/v1/intents', body: bodies, idempotent: true, idempotencyKey }))
      .data;
  }

  /** `POST /v1/intents/cancel` (scope `intents:write`): cancels every pending intent among `ids`; one result per id, in order. Not retried after an ambiguous failure. */
  async cancelMany(ids: string[], options: RequestOptions = {}): Promise<BulkCancelResult[]> {
    return (await this.transport.request<BulkCancelResult[]>({ ...options, method: 'POST', path: '/v1/intents/cancel', body: { ids }, idempotent: false }))
      .data;
  }

  /** `GET /v1/intent/:id` (scope `intents:read`). Another tenant's id is a 404 `ApiError`. */
  async get(id: string, options: RequestOptions = {}): Promise<IntentRecord> {
    return (await this.transport.request<IntentRecord>({ ...options, method: 'GET', path: `/v1/intent/${segment(id)}`, idempotent: true })).data;
  }

  /**
   * `POST /v1/intent/:id/cancel` (scope `intents:write`): `pending` → `cancelled`. Not retried
   * after a failure that may have reached the server (a retry of an applied cancel is a 409);
   * on a `ConnectionError` with `sent`, read the intent to learn the outcome.
   */
  async cancel(id: string, options: RequestOptions = {}): Promise<IntentRecord> {
    return (await this.transport.request<IntentRecord>({ ...options, method: 'POST', path: `/v1/intent/${segment(id)}/cancel`, idempotent: false })).data;
  }

  /** `POST /v1/intents/search` (scope `intents:read`): one page, newest first, and the cursor of the next. */
  async search(query: SearchIntentsInput, options: RequestOptions = {}): Promise<Page<IntentRecord>> {
    const answer = await this.transport.request<IntentRecord[]>({ ...options, method: 'POST', path: '/v1/intents/search', body: query, idempotent: true });
    return { items: answer.data, nextCursor: answer.headers.get('x-next-cursor') };
  }

  /** Every page of a search, following `x-next-cursor` from `query.cursor` (or the start). */
  async *searchPages(query: SearchIntentsInput, options: RequestOptions = {}): AsyncGenerator<Page<IntentRecord>, void, undefined> {
    let cursor = query.cursor ?? null;
    do {
      const page = await this.search({ ...query, cursor }, options);
      yield page;
      cursor = page.nextCursor;
    } while (cursor);
  }

  /** Every intent a search matches, page after page (`for await (const intent of client.intents.searchAll(...))`). */
  async *searchAll(query: SearchIntentsInput, options: RequestOptions = {}): AsyncGenerator<IntentRecord, void, undefined> {
    for await (const page of this.searchPages(query, options)) yield* page.items;
  }

  /**
   * `GET /v1/intents/events` (scope `intents:read`): the tenant's intent events from now on, as
   * an async iterator that reconnects with backoff when the connection drops. Live only: after
   * a reconnection (`onOpen` with `reconnected: true`) reload state with {@link search}.
   */
  events(options: EventStreamOptions = {}): IntentEventStream {
    return new IntentEventStream(this.transport, options);
  }
}

export class NotificationsApi {
  constructor(private readonly transport: Transport) {}

  /** `GET /v1/intents/notifications/secret` (scope `intents:write`): the secret `verifyWebhook` checks our signatures with. */
  async secret(options: RequestOptions = {}): Promise<string> {
    return (await this.transport.request<{ secret: string }>({ ...options, method: 'GET', path: '/v1/intents/notifications/secret', idempotent: true })).data
      .secret;
  }

  /** `POST /v1/intents/notifications/secret/rotate` (scope `intents:write`): a new secret, answered; the old one signs nothing from then on. Not retried after an ambiguous failure. */
  async rotateSecret(options: RequestOptions = {}): Promise<string> {
    return (
      await this.transport.request<{ secret: string }>({ ...options, method: 'POST', path: '/v1/intents/notifications/secret/rotate', idempotent: false })
    ).data.secret;
  }
}

export class PayoutsApi {
  constructor(private readonly transport: Transport) {}

  /** `GET /v1/payouts/tx/:hash` (scope `payouts:read`): the entries a transaction generated (possibly none). Amounts exact. */
  async byTransaction(hash: string, options: RequestOptions = {}): Promise<PayoutEntry[]> {
    return (await this.transport.request<PayoutEntry[]>({ ...options, method: 'GET', path: `/v1/payouts/tx/${segment(hash)}`, idempotent: true, exact: true }))
      .data;
  }

  /** `GET /v1/payouts` (scope `payouts:read`): one page of entries, newest first. Amounts exact. */
  async list(query: ListEntriesInput = {}, options: RequestOptions = {}): Promise<Page<PayoutEntry>> {
    const { from, to, ...rest } = query;
    const answer = await this.transport.request<PayoutEntry[]>({
      ...options,
      method: 'GET',
      path: '/v1/payouts',
      query: { ...rest, from: from instanceof Date ? from.toISOString() : from, to: to instanceof Date ? to.toISOString() : to },
      idempotent: true,
      exact: true,
    });
    return { items: answer.data, nextCursor: answer.headers.get('x-next-cursor') };
  }

  /** Every entry matching the filters, page after page. */
  async *listAll(query: ListEntriesInput = {}, options: RequestOptions = {}): AsyncGenerator<PayoutEntry, void, undefined> {
    let cursor = query.cursor;
    do {
      const page = await this.list({ ...query, cursor }, options);
      yield* page.items;
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }

  /**
   * `POST /v1/payouts/entries` (scope `admin`): records an entry by hand. Its `id` makes it
   * idempotent (`created: false` when it was recorded already), so it is retried like a read.
   */
  async recordEntry(event: RecordEntryInput, options: RequestOptions = {}): Promise<{ entry: PayoutEntry; created: boolean }> {
    const body = { ...event, time: event.time instanceof Date ? event.time.toISOString() : event.time };
    const answer = await this.transport.request<PayoutEntry>({ ...options, method: 'POST', path: '/v1/payouts/entries', body, idempotent: true, exact: true });
    return { entry: answer.data, created: answer.status === 201 };
  }
}

export class CashbackApi {
  constructor(private readonly transport: Transport) {}

  /** `GET /v1/cashback/source/:id` (scope `payouts:read`): balances per (chain, asset), exact. */
  async source(sourceId: string, options: RequestOptions = {}): Promise<CashbackSource> {
    return (
      await this.transport.request<CashbackSource>({
        ...options,
        method: 'GET',
        path: `/v1/cashback/source/${segment(sourceId)}`,
        idempotent: true,
        exact: true,
      })
    ).data;
  }

  /** `GET /v1/cashback/source/:id/payouts` (scope `payouts:read`): the source's latest 100 payouts, newest first. */
  async sourcePayouts(sourceId: string, options: RequestOptions = {}): Promise<Payout[]> {
    return (
      await this.transport.request<Payout[]>({
        ...options,
        method: 'GET',
        path: `/v1/cashback/source/${segment(sourceId)}/payouts`,
        idempotent: true,
        exact: true,
      })
    ).data;
  }

  /**
   * `POST /v1/cashback/source/:id/payout` (scope `payouts:write`): claims the source's
   * unclaimed entries of that chain and asset into a payout. Not retried after an ambiguous
   * failure (a retry would claim only entries no payout holds yet, or answer 409 `nothing_to_pay`).
   */
  requestPayout(sourceId: string, body: RequestPayoutInput, options: RequestOptions = {}): Promise<Payout> {
    return this.postPayout<Payout>(sourceId, body, options);
  }

  /**
   * Merkle's form of `POST /v1/cashback/source/:id/payout`: every claimable (chain, asset)
   * balance becomes its own payout, in kind, to `address`. Not retried after an ambiguous failure.
   */
  requestAllPayouts(sourceId: string, body: RequestAllPayoutsInput, options: RequestOptions = {}): Promise<AllPayouts> {
    return this.postPayout<AllPayouts>(sourceId, body, options);
  }

  /** `POST /v1/cashback/source/:id/payout` in either form: never retried after an ambiguous failure. */
  private async postPayout<T>(sourceId: string, body: RequestPayoutInput | RequestAllPayoutsInput, options: RequestOptions): Promise<T> {
    const path = `/v1/cashback/source/${segment(sourceId)}/payout`;
    return (await this.transport.request<T>({ ...options, method: 'POST', path, body, idempotent: false, exact: true })).data;
  }

  /** `GET /v1/cashback/payout/:id` (scope `payouts:read`). */
  async payout(payoutId: string, options: RequestOptions = {}): Promise<Payout> {
    return (
      await this.transport.request<Payout>({ ...options, method: 'GET', path: `/v1/cashback/payout/${segment(payoutId)}`, idempotent: true, exact: true })
    ).data;
  }

  /** `POST /v1/cashback/payout/:id/status` (scope `admin`): `TX_PENDING` (with `txHash`), `PAID` or `TX_FAILED`. */
  async setPayoutStatus(payoutId: string, body: PayoutTransitionInput, options: RequestOptions = {}): Promise<Payout> {
    return (
      await this.transport.request<Payout>({
        ...options,
        method: 'POST',
        path: `/v1/cashback/payout/${segment(payoutId)}/status`,
        body,
        idempotent: false,
        exact: true,
      })
    ).data;
  }
}

export class SourcesApi {
  constructor(private readonly transport: Transport) {}

  /** `POST /v1/sources` (scope `admin`): registers a source to a tenant (by the tenant's name). */
  async register(body: RegisterSourceInput, options: RequestOptions = {}): Promise<{ id: string; tenant: string }> {
    return (await this.transport.request<{ id: string; tenant: string }>({ ...options, method: 'POST', path: '/v1/sources', body, idempotent: false })).data;
  }
}
