import type {
  BulkCancelResult,
  Cashback,
  DashboardUrl,
  ErrorBody,
  IntentRecord,
  Liveness,
  NotificationSecret,
  Payout,
  PayoutBatch,
  PayoutEntry,
  Readiness,
  RegisteredSource,
  ServicesHealth,
  SimulationResult,
} from '@tradeinfra/contracts';

/*
 * The examples of the OpenAPI document, one set per operation: typed by the contracts' types
 * (a field added to a schema does not compile here until its example has it) and parsed with the
 * routes' own zod schemas by openapi.spec.ts. The route tables attach them to their routes.
 */

export const WALLET = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
export const TOKEN = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
export const PAYOUT_ADDRESS = '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB';
const FEE_RECIPIENT = '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB';
const DEPLOYER = '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb';
export const IDS = ['019ab2f4-5c00-7a10-8a3e-3c1f0b6f2a01', '019ab2f4-5c00-7a10-8a3e-3c1f0b6f2a02', '019ab2f4-5c00-7a10-8a3e-3c1f0b6f2a03'] as const;
const LAUNCH_TX = '0x7f4d3b29b184096659b499ee9cc15355c5edc70f3ea76fb14975ea1f505d42b8';
const BUY_TX = '0x01a08a72149d0ebb6b4630bafdc2f42c15dbebf95d9bd63c9b51a0f4bf58d814';
export const PAYOUT_TX = '0x9f2c6e1d0b8a4c3e5f7a9b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e';
const PAYOUT_IDS = ['019ab6a0-0000-7000-8000-000000000001', '019ab6a0-0000-7000-8000-000000000002'] as const;

/** A bot intent's body: Merkle's fields (its signing webhook then speaks Merkle's protocol). */
export const CREATE_INTENT = {
  chainId: 1,
  wallet: WALLET,
  tokenAddress: TOKEN,
  bribe: '1000000000000000',
  buyAmount: '100000000000000000',
  expiry: 1893456000,
  maxBuyTax: 0.1,
  firstOrFail: true,
  gasTip: '1000000000',
  webhookUrl: 'https://signer.example.com/sign',
  notificationWebhookUrl: 'https://hooks.example.com/intents',
};

/** Merkle's wallet intent body: no nonce, so Merkle's 5-field BuyIntent is what `signature` signs. */
export const CREATE_WALLET_INTENT = {
  chainId: 1,
  wallet: WALLET,
  tokenAddress: TOKEN,
  bribe: '2000000000000000000',
  buyAmount: '1000000000000000000',
  expiry: 1893456000,
  minIn: '0',
  maxBuyTax: 0.2,
  signature: `0x${'4f'.repeat(32)}${'3a'.repeat(32)}1b`,
};

/** The record of CREATE_INTENT as it is answered, pending. */
export function intentRecord(over: Partial<IntentRecord> = {}): IntentRecord {
  return {
    id: IDS[0],
    status: 'pending',
    chainId: 1,
    wallet: WALLET,
    tokenAddress: TOKEN,
    bribe: '1000000000000000',
    buyAmount: '100000000000000000',
    expiry: 1893456000,
    maxBuyTax: 0.1,
    maxSellTax: null,
    minIn: null,
    minOut: null,
    minLiquidity: null,
    feeBps: null,
    feeRecipient: null,
    firstOrFail: true,
    maxSlippageBps: null,
    gasTip: '1000000000',
    createdAt: '2026-11-23T21:40:00.000Z',
    updatedAt: '2026-11-23T21:40:00.000Z',
    txHash: null,
    executedAt: null,
    statusReason: null,
    statusData: null,
    notificationWebhookUrl: 'https://hooks.example.com/intents',
    webhookUrl: 'https://signer.example.com/sign',
    webhookBatch: null,
    webhookProtocol: 'merkle',
    kind: 'bot',
    nonce: null,
    launch: null,
    createdAtMs: 1795470000000,
    error: null,
    minBuy: null,
    token: {
      chainId: 1,
      address: TOKEN,
      deployer: DEPLOYER,
      deployerHash: `0x${'5e'.repeat(32)}`,
      deployerBlocknumber: 21034000,
      deployerTimestamp: 1795460000,
    },
    exit: null,
    ...over,
  };
}

/** An exit's body: take-profit at 2× and stop-loss at half of a given entry price, and anti-rug. */
export const CREATE_EXIT = {
  chainId: 1,
  wallet: WALLET,
  tokenAddress: TOKEN,
  amount: 'all',
  entryPrice: '1000000000000',
  takeProfit: 2.0,
  stopLoss: 0.5,
  onRug: true,
  maxSlippageBps: 300,
  bribe: '1000000000000000',
  expiry: 1893456000,
  webhookUrl: 'https://signer.example.com/sign',
  webhookProtocol: 'tradeinfra',
  notificationWebhookUrl: 'https://hooks.example.com/intents',
};

/** The record of CREATE_EXIT as it is answered, pending. */
export function exitRecord(): IntentRecord {
  return intentRecord({
    kind: 'exit',
    bribe: '1000000000000000',
    buyAmount: '0',
    maxBuyTax: null,
    firstOrFail: null,
    maxSlippageBps: 300,
    gasTip: null,
    webhookProtocol: 'tradeinfra',
    exit: {
      amount: 'all',
      takeProfit: 2,
      stopLoss: 0.5,
      trailingStop: null,
      onRug: true,
      entryPrice: '1000000000000',
      followsIntentId: null,
      highestPrice: null,
      trigger: null,
      price: null,
      expiry: null,
    },
  });
}

/** The same intent once bought at a launch seen pending. */
export const COMPLETED_INTENT = intentRecord({
  status: 'completed',
  updatedAt: '2026-11-23T22:05:13.000Z',
  txHash: BUY_TX,
  executedAt: '2026-11-23T22:05:11.000Z',
  statusData: { txHash: BUY_TX },
  launch: { type: 'public_transaction', txHash: LAUNCH_TX, blockNumber: 21034567, launchTxHash: LAUNCH_TX },
});

export const WALLET_INTENT = intentRecord({
  bribe: CREATE_WALLET_INTENT.bribe,
  buyAmount: CREATE_WALLET_INTENT.buyAmount,
  maxBuyTax: 0.2,
  minIn: '0',
  minBuy: '0',
  firstOrFail: null,
  gasTip: null,
  notificationWebhookUrl: null,
  webhookUrl: null,
  webhookProtocol: null,
  kind: 'wallet',
});

export const CANCELLED_INTENT = intentRecord({
  status: 'cancelled',
  updatedAt: '2026-11-23T21:41:00.000Z',
  statusReason: 'cancelled by the client',
});

export const BULK_CANCEL_RESULTS: BulkCancelResult[] = [
  { id: IDS[0], status: 'cancelled', cancelled: true, reason: null },
  { id: IDS[1], status: 'completed', cancelled: false, reason: 'not_pending' },
  { id: IDS[2], status: null, cancelled: false, reason: 'not_found' },
];

/** One server-sent event, as `GET /v1/intents/events` streams it. */
export const EVENT_STREAM = [
  'event: intent_ignored',
  'id: 019ab5e1-7c2a-7f00-8a1e-4c1d2e3f4a5b',
  `data: {"id":"019ab5e1-7c2a-7f00-8a1e-4c1d2e3f4a5b","intentId":"${IDS[0]}","chainId":1,"type":"intent_ignored","reason":"buy_tax_too_high","data":{"max":0.1,"actual":0.25},"event":"failed","occurredAt":"2026-11-23T22:05:11.000Z","tenantId":"tenant-a","intent":{"id":"${IDS[0]}","status":"failed","…":"…"}}`,
  '',
  ': keep-alive',
  '',
].join('\n');

export const SECRET: NotificationSecret = { secret: '3f1c9a6e2b7d4f8a0c5e1b9d7a3f6c2e8b4d0a7f5c3e9b1d6a2f8c4e0b7d5a3f' };

export const MEV_CAPTURE = {
  id: '019ab6a0-1111-7000-8000-00000000aaaa',
  chainId: 1,
  txHash: PAYOUT_TX,
  sourceId: 'wallet-app-1',
  asset: 'ETH',
  amount: '0.0125',
  type: 'mev',
  time: '2026-11-23T22:05:11.000Z',
};

export const PAYOUT_ENTRY: PayoutEntry = {
  id: '019ab6a0-2222-7000-8000-00000000bbbb',
  asset: 'ETH',
  amount: 0.0125,
  sourceId: 'wallet-app-1',
  chainId: 1,
  type: 'mev',
  reference: PAYOUT_TX,
  payoutId: '',
  createdAt: '2026-11-23T22:05:12.000Z',
  status: 'PENDING',
};

export const CASHBACK: Cashback = {
  sourceId: 'wallet-app-1',
  entryCount: 42,
  latestEntryAt: '2026-11-23T22:05:12.000Z',
  balances: [{ chainId: 1, asset: 'ETH', amount: 0.35, pending: 0.5, claimable: 0.35, paid: 1.25 }],
  estimatedUsd: 1050,
  unpricedAssets: [],
};

export function payout(over: Partial<Payout> = {}): Payout {
  return {
    id: PAYOUT_IDS[0],
    sourceId: 'wallet-app-1',
    address: FEE_RECIPIENT,
    chainId: 1,
    asset: 'ETH',
    amount: 0.35,
    status: 'PENDING',
    txHash: null,
    tx_hash: null,
    ...over,
  };
}

export const PAYOUT_BATCH: PayoutBatch = {
  id: PAYOUT_IDS[0],
  payouts: [payout(), payout({ id: PAYOUT_IDS[1], chainId: 56, asset: 'BNB', amount: 0.8 })],
};

export const REGISTERED_SOURCE: RegisteredSource = { id: 'wallet-app-1', tenant: 'acme' };

export const DASHBOARD_URL: DashboardUrl = {
  url: 'https://api.example.com/dashboard?token=eyJhbGciOiJIUzI1NiJ9.eyJ0ZW5hbnQiOiJhY21lIn0.c2lnbmF0dXJl',
  expiresAt: '2026-11-23T22:20:00.000Z',
};

/** A transfer of 1 wei from one account to another, simulated on top of block 21034567. */
export const SIMULATE = {
  chainId: 1,
  blockNumber: '0x140f3c7',
  calls: [{ from: WALLET, to: FEE_RECIPIENT, value: '0x1', gas: '0x5208' }],
};

export const SIMULATION_RESULT: SimulationResult = {
  id: '019ab6a0-3333-7000-8000-00000000cccc',
  chainId: 1,
  blockNumber: '0x140f3c7',
  processTime: 12,
  calls: [
    {
      logs: [],
      gasUsed: '0x5208',
      result: '',
      status: 1,
      internalTransfers: [],
      updated: { accounts: { [WALLET.toLowerCase()]: { nonce: 8, balance: '0xde0b6b3a763ffff' }, [FEE_RECIPIENT.toLowerCase()]: { balance: '0x1' } } },
    },
  ],
};

export const LIVENESS: Liveness = { status: 'ok' };
const SERVICES_UP = { 'intent-service': 'up', 'simulation-service': 'up', 'payout-service': 'up', 'orderflow-service': 'up' } as const;
export const READY: Readiness = { status: 'ok', checks: { database: 'up', nats: 'up', services: SERVICES_UP }, failing: [] };
export const NOT_READY: Readiness = { status: 'unavailable', checks: { database: 'down', nats: 'up', services: SERVICES_UP }, failing: ['database'] };
const ENDPOINT = { url: 'https://eth.example.com', state: 'up', head: '21000000', lag: 0, latencyMs: 38.2, reads: true } as const;
export const SERVICES_HEALTH: ServicesHealth = {
  status: 'degraded',
  services: {
    'intent-service': {
      state: 'up',
      latencyMs: 2.1,
      chains: [
        {
          chainId: 1,
          endpoints: [ENDPOINT, { url: 'https://eth-backup.example.com', state: 'lagging', head: '20999995', lag: 5, latencyMs: 51.0, reads: false }],
        },
      ],
    },
    'simulation-service': { state: 'up', latencyMs: 1.7, chains: [{ chainId: 1, endpoints: [ENDPOINT] }] },
    'payout-service': { state: 'up', latencyMs: 1.9 },
  },
};
export const METRICS = [
  '# HELP http_requests_total HTTP requests answered, by route and status',
  '# TYPE http_requests_total counter',
  'http_requests_total{method="POST",route="/v1/intent",status="201"} 1027',
  '',
].join('\n');
export const HTML_PAGE = '<!doctype html>\n<html lang="en">…</html>\n';
export const INIT_JS = "window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#ui', deepLinking: true });";
export const OPENAPI_EXCERPT = { openapi: '3.1.0', info: { title: 'Intents, payouts and simulation API', version: '1.0.0' }, paths: {} };

// ---- errors: each operation's main error ----

export function validationError(path: string, message: string): ErrorBody {
  return { error: true, name: 'ValidationError', message: `${path}: ${message}`, details: [{ path, message }] };
}
export const NOT_FOUND = (what: string, id: string): ErrorBody => ({ error: true, name: 'NotFound', message: `${what} ${id} not found`, details: null });
export const UNAUTHORIZED: ErrorBody = {
  error: true,
  name: 'Unauthorized',
  message: 'Missing API key: send it as x-api-key: KEY, Authorization: Bearer KEY or Authorization: Token KEY',
  details: null,
};
export const FORBIDDEN = (scope: string): ErrorBody => ({
  error: true,
  name: 'Forbidden',
  message: `This API key lacks the scope ${scope}`,
  details: { requiredScope: scope },
});
export const RATE_LIMITED: ErrorBody = { error: true, name: 'RateLimited', message: 'At most 5 event streams per API key are open at once', details: null };
export const NOT_PENDING: ErrorBody = {
  error: true,
  name: 'Conflict',
  message: `Intent ${IDS[0]} is completed; only a pending intent can be cancelled`,
  details: { status: 'completed' },
};
export const NOTHING_TO_PAY: ErrorBody = {
  error: true,
  name: 'Conflict',
  message: 'Source wallet-app-1 has no unclaimed PENDING ETH entries on chain 1',
  details: { reason: 'nothing_to_pay' },
};
export const DASHBOARD_NOT_BUILT = 'The dashboard is not built: run npm run build';
