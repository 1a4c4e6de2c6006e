/**
 * Request and answer types of the API, derived from `@tradeinfra/contracts` (the schemas the
 * gateway and the services validate with), loosened where a caller may give more: optional
 * fields may be left out, amounts may be bigints (sent as decimal strings).
 */
import type {
  CreateExitRequest,
  CreateIntentRequest,
  CreateWalletIntentRequest,
  ListEntriesQuery,
  MevCaptureEvent,
  Payout as ContractPayout,
  PayoutEntry as ContractPayoutEntry,
  PayoutTransition,
  RequestPayout,
  SearchIntentsRequest,
} from '@tradeinfra/contracts';

export type {
  IntentEvent,
  IntentEventType,
  IntentKind,
  IntentRecord,
  IntentStatus,
  PayoutStatus,
  EntryStatus,
  SigningRequest,
  SigningBatchRequest,
  SimulationResult,
  SimulatedCall,
  SimulatedCallError,
  SimulationLog,
  InternalTransfer,
  StateUpdate,
  FieldIssue,
  ErrorName,
} from '@tradeinfra/contracts';

type Simplify<T> = { [K in keyof T]: T[K] } & {};
/** The keys of `T` whose type admits null (optional fields of the contracts' records). */
type NullableKeys<T> = { [K in keyof T]-?: null extends T[K] ? K : never }[keyof T];
/** `T` as a caller writes it: nullable fields optional, the `Amount` fields also as bigints. */
type Loosen<T, Amount extends PropertyKey> = Simplify<
  { [K in Exclude<keyof T, NullableKeys<T>>]: K extends Amount ? T[K] | bigint : T[K] } & {
    [K in NullableKeys<T>]?: K extends Amount ? T[K] | bigint : T[K];
  }
>;

/** Wei / token-unit / cent amounts of an intent: decimal strings, or bigints (converted). */
type IntentAmounts = 'bribe' | 'buyAmount' | 'minIn' | 'minOut' | 'minLiquidity' | 'gasTip';

/** Body of `POST /v1/intent` (`client.intents.create`). */
export type CreateIntentInput = Loosen<CreateIntentRequest, IntentAmounts>;
/** Body of `POST /v1/wallet/intent` (`client.intents.createWallet`): the wallet's EIP-712 `signature` and its `nonce`. */
export type CreateWalletIntentInput = Loosen<CreateWalletIntentRequest, IntentAmounts | 'nonce'>;

/** Body of `POST /v1/exit` (`client.intents.createExit`): `amount` defaults to "all", `bribe` to 0. */
export type CreateExitInput = Simplify<
  Omit<Loosen<CreateExitRequest, 'minOut' | 'gasTip' | 'entryPrice'>, 'amount' | 'bribe'> & { amount?: string | bigint; bribe?: string | bigint }
>;

/** Body of `POST /v1/intents/search`: `status` defaults to `["pending"]`, `limit` to 100 (max 500). */
export type SearchIntentsInput = Simplify<Pick<SearchIntentsRequest, 'addresses'> & Partial<Pick<SearchIntentsRequest, 'status' | 'limit' | 'cursor'>>>;

/**
 * A ledger entry. Unlike the wire (a JSON number rendered from the exact decimal), `amount` is
 * the exact decimal string (`"0.015"`): parse it as a decimal, never as a float.
 */
export type PayoutEntry = Simplify<Omit<ContractPayoutEntry, 'amount'> & { amount: string }>;
/** A payout; `amount` is the exact decimal string. */
export type Payout = Simplify<Omit<ContractPayout, 'amount'> & { amount: string }>;

/** Filters of `GET /v1/payouts` (`client.payouts.list`); `from`/`to` bound `createdAt` (`to` exclusive). */
export type ListEntriesInput = Simplify<Omit<ListEntriesQuery, 'from' | 'to'> & { from?: string | Date; to?: string | Date }>;

/** Body of `POST /v1/cashback/source/:id/payout` for one (chain, asset) balance. */
export type RequestPayoutInput = Simplify<Omit<RequestPayout, 'chainId' | 'asset' | 'email'> & { chainId: number; asset: string }>;
/** Merkle's body of `POST /v1/cashback/source/:id/payout`: every claimable balance, to `address`. */
export interface RequestAllPayoutsInput {
  address: string;
  /** A contact kept for operators, never shown. */
  email?: string;
}
/** The answer to {@link RequestAllPayoutsInput}: the first payout's id and every payout made. */
export interface AllPayouts {
  id: string;
  payouts: Payout[];
}
/** Body of `POST /v1/cashback/payout/:id/status` (admin). */
export type PayoutTransitionInput = PayoutTransition;
/** Body of `POST /v1/payouts/entries` (admin): a MEV-capture event; `amount` a decimal string (`"0.015"`). */
export type RecordEntryInput = Simplify<Loosen<Omit<MevCaptureEvent, 'time'>, never> & { time: string | Date }>;

/** Body of `POST /v1/sources` (admin): registers source `id` to the tenant named `tenant`. */
export interface RegisterSourceInput {
  id: string;
  tenant: string;
}

/** A source's balance on one (chain, asset); amounts are exact decimal strings. */
export interface CashbackBalance {
  chainId: number;
  asset: string;
  /** Not paid yet, including what payouts in progress hold. */
  pending: string;
  /** Not claimed by any payout: what a payout request would claim. */
  claimable: string;
  /** Merkle's name of `claimable`. */
  amount: string;
  paid: string;
}

/** `GET /v1/cashback/source/:id`. */
export interface CashbackSource {
  sourceId: string;
  entryCount: number;
  /** ISO 8601 UTC, null when the source has no entry. */
  latestEntryAt: string | null;
  balances: CashbackBalance[];
  /** The claimable balances in USD, rounded down to cents (exact decimal string). */
  estimatedUsd: string;
  /** Assets left out of `estimatedUsd` (no price source). */
  unpricedAssets: string[];
}

/** A value the simulation takes as an integer: a number, a bigint (sent as a decimal string), a decimal or 0x hex string. */
export type Quantity = number | bigint | string;

export interface SimulationOverridesInput {
  accounts?: Record<string, { nonce?: number; balance?: Quantity }>;
  contractCodes?: Record<string, string>;
  /** Address → slot → value (0x hex words of at most 32 bytes). */
  storage?: Record<string, Record<string, string>>;
}

export interface SimulationCallInput {
  from: string;
  /** Omitted or null: a contract creation with `data` as init code. */
  to?: string | null;
  data?: string;
  nonce?: number;
  value?: Quantity;
  gas?: Quantity;
  /** Another name for `gas` (Merkle's SDKs); send one of them. */
  gasLimit?: Quantity;
  /** Applied just before this call. */
  overrides?: SimulationOverridesInput;
}

/** Body of `POST /v1/simulate`. */
export interface SimulateInput {
  chainId: number;
  /** The state after this block; the upstream head when omitted. */
  blockNumber?: Quantity;
  block_number?: Quantity;
  /** 1 to 100 calls, run in order on one shared state. */
  calls: SimulationCallInput[];
  overrides?: SimulationOverridesInput;
}

/** `GET /ready`: whether this gateway replica's Postgres and NATS answer; `failing` names what is down (services included). */
export interface Readiness {
  ready: boolean;
  status: 'ok' | 'degraded' | 'unavailable';
  checks: { database: 'up' | 'down'; nats: 'up' | 'down'; services: Record<string, 'up' | 'down'> };
  failing: string[];
}

/** `GET /health/services`. */
export interface ServicesHealth {
  status: 'ok' | 'degraded';
  services: Record<
    string,
    {
      state: 'up' | 'down';
      latencyMs: number | null;
      /** The chains the service reads: each endpoint's head, lag and state. */
      chains?: {
        chainId: number;
        endpoints: {
          url: string;
          state: 'up' | 'lagging' | 'down' | 'unknown';
          head: string | null;
          lag: number | null;
          latencyMs: number | null;
          reads: boolean;
          error?: string;
        }[];
      }[];
    }
  >;
}
