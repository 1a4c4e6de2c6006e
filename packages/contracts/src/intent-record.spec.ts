import { BulkCancelResultSchema, IntentEventSchema, IntentRecordSchema, type IntentRecord } from './intent-record.js';

const record: IntentRecord = {
  id: '019ab2f4-5c00-7a10-8a3e-3c1f0b6f2a01',
  status: 'completed',
  chainId: 1,
  wallet: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  tokenAddress: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
  bribe: '1000',
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
  gasTip: null,
  createdAt: '2026-11-23T21:40:00.000Z',
  updatedAt: '2026-11-23T21:40:01.000Z',
  txHash: `0x${'ab'.repeat(32)}`,
  executedAt: '2026-11-23T21:40:01.000Z',
  statusReason: null,
  statusData: { txHash: `0x${'ab'.repeat(32)}` },
  notificationWebhookUrl: null,
  webhookUrl: 'https://signer.example/sign',
  webhookBatch: true,
  kind: 'bot',
  nonce: null,
  webhookProtocol: 'tradeinfra',
  launch: { type: 'public_transaction', txHash: `0x${'cd'.repeat(32)}`, blockNumber: 123, launchTxHash: `0x${'cd'.repeat(32)}` },
  createdAtMs: 1795470000000,
  error: null,
  minBuy: null,
  token: {
    chainId: 1,
    address: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
    deployer: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    deployerHash: `0x${'ef'.repeat(32)}`,
    deployerBlocknumber: 120,
    deployerTimestamp: 1795469000,
  },
  exit: null,
};

describe('the answer schemas', () => {
  it('take an intent record as the service renders it, launch included, and nothing more', () => {
    expect(IntentRecordSchema.parse(record)).toEqual(record);
    expect(IntentRecordSchema.parse({ ...record, launch: null }).launch).toBeNull();
    expect(IntentRecordSchema.parse({ ...record, launch: { type: 'block', txHash: null, blockNumber: null, launchTxHash: null } }).launch).toEqual({
      type: 'block',
      txHash: null,
      blockNumber: null,
      launchTxHash: null,
    });
    const unknownDeployer = { ...record.token, deployer: null, deployerHash: null, deployerBlocknumber: null, deployerTimestamp: null };
    expect(IntentRecordSchema.parse({ ...record, token: unknownDeployer }).token).toEqual(unknownDeployer);
    expect(IntentRecordSchema.safeParse({ ...record, error: 'min_in_too_low' }).success).toBe(false);
    expect(IntentRecordSchema.safeParse({ ...record, extra: 1 }).success).toBe(false);
    expect(IntentRecordSchema.safeParse({ ...record, launch: { type: 'mempool', txHash: null, blockNumber: null } }).success).toBe(false);
    const { launch: _launch, ...withoutLaunch } = record;
    expect(IntentRecordSchema.safeParse(withoutLaunch).success).toBe(false);
  });

  it('take a notification and a bulk cancel entry', () => {
    const event = {
      id: '019ab2f4-5c00-7a10-8a3e-3c1f0b6f2a09',
      intentId: record.id,
      chainId: 1,
      type: 'intent_completed',
      reason: 'completed',
      data: record.statusData,
      event: 'completed',
      occurredAt: '2026-11-23T21:40:01.000Z',
      tenantId: 'tenant',
      intent: record,
    };
    expect(IntentEventSchema.parse(event)).toEqual(event);
    expect(IntentEventSchema.safeParse({ ...event, type: 'completed' }).success).toBe(false);
    expect(BulkCancelResultSchema.parse({ id: record.id, status: null, cancelled: false, reason: 'not_found' }).reason).toBe('not_found');
  });
});
