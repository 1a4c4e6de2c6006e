import { createHmac } from 'node:crypto';
import type { UnsignedTransaction } from '@tradeinfra/contracts';
import { SigningWebhook } from '@tradeinfra/test-support';
import { keccak256, Wallet } from 'ethers';
import { WebhookClient } from '../common/webhook-client.js';
import { type SignJob } from '../execution/signed-buy.js';
import { WebhookSigner } from '../execution/signer.js';
import { RecordingListener } from './recording-listener.js';

/**
 * SigningBatchRequests (intents created with `webhookBatch: true`) against a real signing webhook
 * over loopback (test-support's: HMAC checked, each buy signed with its wallet's key): one
 * request for several buys, a result per buy, each verified on its own.
 */
const secret = 'whsec_batch_test';
const wallets = [
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
].map((k) => new Wallet(k));

const buy = (wallet: Wallet, nonce: number): UnsignedTransaction => ({
  purpose: 'buy',
  type: 2,
  chainId: 31337,
  from: wallet.address,
  nonce,
  to: null,
  value: '1000000000000000',
  data: `0x600160015500${nonce.toString(16).padStart(2, '0')}`,
  gasLimit: '250000',
  maxFeePerGas: '3000000000',
  maxPriorityFeePerGas: '1000000000',
  accessList: [],
  summary: {} as UnsignedTransaction['summary'],
});

const jobs = (webhookUrl: string): SignJob[] =>
  wallets.map((w, i) => ({ intentId: `intent-${i}`, tenantId: 't', webhookUrl, tx: buy(w, i + 3), launchBlock: 10n, targetBlock: 11n }));

const signer = () =>
  new WebhookSigner({
    timeoutMs: 2_000,
    sign: async (_tenant, timestamp, body) => `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`,
    client: new WebhookClient({ WEBHOOK_ALLOW_HTTP: true, WEBHOOK_ALLOW_PRIVATE: true }),
  });

describe('WebhookSigner.signBatch', () => {
  let webhook: SigningWebhook;

  beforeAll(async () => {
    webhook = await new SigningWebhook(() => secret, wallets).start();
  });
  afterAll(() => webhook?.close());
  afterEach(() => {
    webhook.behaviour.clear();
    webhook.routes.clear();
    webhook.received.length = 0;
  });

  it('asks for every buy in one HMAC-signed request and verifies each answer', async () => {
    const results = await signer().signBatch(jobs(webhook.url));
    expect(results.map((r) => r.ok)).toEqual([true, true, true]);
    // One request: every buy of it names the same batch, in the jobs' order.
    expect(webhook.takeStats().requests).toBe(1);
    const batch = webhook.received[0]!.batch!;
    expect(batch).toMatchObject({ kind: 'signBatch', chainId: 31337, launchBlock: '10', targetBlock: '11' });
    expect(batch.requests.map((r) => [r.intentId, r.wallet, r.transactions.length])).toEqual(wallets.map((w, i) => [`intent-${i}`, w.address, 1]));
    expect(webhook.received.every((r) => r.verified && r.batch?.id === batch.id)).toBe(true);
    // Each result is the transaction the webhook signed for that buy.
    results.forEach((r, i) => {
      if (!r.ok) throw new Error('not signed');
      expect(r.hash).toBe(keccak256(r.raw));
      expect(webhook.received[i]!.answeredHashes).toEqual([r.hash]);
    });
  });

  it('fails only the buy the webhook declined (null) and the one it signed wrongly', async () => {
    webhook.behaviour.set(wallets[1]!.address.toLowerCase(), 'refuse');
    webhook.behaviour.set(wallets[2]!.address.toLowerCase(), 'tamper');
    const results = await signer().signBatch(jobs(webhook.url));
    expect(results[0]).toMatchObject({ ok: true });
    expect(results[1]).toEqual({ ok: false, reason: 'signer_refused', detail: 'the webhook declined to sign this buy' });
    expect(results[2]).toMatchObject({ ok: false, reason: 'signature_invalid', detail: 'signed transaction differs in value' });
  });

  it('fails every buy of a request the webhook did not answer as asked', async () => {
    webhook.routes.set('down', 'http-500');
    expect((await signer().signBatch(jobs(webhook.urlFor('down')))).map((r) => !r.ok && r.reason)).toEqual([
      'signer_refused',
      'signer_refused',
      'signer_refused',
    ]);
    webhook.routes.set('garbled', 'not-json');
    expect((await signer().signBatch(jobs(webhook.urlFor('garbled')))).map((r) => !r.ok && r.reason)).toEqual([
      'signature_invalid',
      'signature_invalid',
      'signature_invalid',
    ]);
  });

  it('fails each buy whose entry is not its own signed buy: a number, an object, another buy’s signature, the same one twice', async () => {
    const listener = await new RecordingListener().start('127.0.0.1');
    try {
      const signed = await signer().signBatch(jobs(webhook.url));
      const raws = signed.map((r) => (r.ok ? r.raw : null));
      expect(raws.every((r) => r !== null)).toBe(true);
      // Entry 0 right, entry 1 is buy 0's transaction again, entry 2 a number: only buy 0 goes through.
      listener.answer = { status: 200, body: JSON.stringify({ signedTransactions: [raws[0], raws[0], 42] }) };
      const results = await signer().signBatch(jobs(`http://127.0.0.1:${listener.port}/sign`));
      expect(results.map((r) => (r.ok ? 'ok' : r.reason))).toEqual(['ok', 'signature_invalid', 'signature_invalid']);
      listener.answer = { status: 200, body: JSON.stringify({ signedTransactions: [{ raw: raws[0] }, raws[1], raws[2]] }) };
      const again = await signer().signBatch(jobs(`http://127.0.0.1:${listener.port}/sign`));
      expect(again.map((r) => (r.ok ? 'ok' : r.reason))).toEqual(['signature_invalid', 'ok', 'ok']);
    } finally {
      await listener.close();
    }
  });

  it('fails every buy when the answer has another number of entries than the request', async () => {
    const listener = await new RecordingListener().start('127.0.0.1');
    try {
      const one = (await signer().signBatch(jobs(webhook.url).slice(0, 1)))[0];
      if (!one?.ok) throw new Error('not signed');
      listener.answer = { status: 200, body: JSON.stringify({ signedTransactions: [one.raw] }) };
      const results = await signer().signBatch(jobs(`http://127.0.0.1:${listener.port}/sign`));
      expect(results).toHaveLength(3);
      for (const r of results)
        expect(r).toMatchObject({
          ok: false,
          reason: 'signature_invalid',
          detail: expect.stringContaining('one entry (a raw transaction or null) per request: 3'),
        });
    } finally {
      await listener.close();
    }
  });
});
