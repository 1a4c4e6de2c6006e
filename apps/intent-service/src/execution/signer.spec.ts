import type { UnsignedTransaction } from '@tradeinfra/contracts';
import { keccak256, Signature, Transaction, Wallet } from 'ethers';
import { DevSigner, merkleRequest, verifyMerkleSignature, verifySigned, type SignJob } from './signed-buy.js';
import { signingUnits } from './signer.js';

const wallet = new Wallet('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const other = new Wallet('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a');
const tx: UnsignedTransaction = {
  purpose: 'buy',
  type: 2,
  chainId: 31337,
  from: wallet.address,
  nonce: 7,
  to: null,
  value: '1000000000000000007',
  data: '0x6001600155',
  gasLimit: '250000',
  maxFeePerGas: '3000000000',
  maxPriorityFeePerGas: '1000000000',
  accessList: [],
  summary: {} as UnsignedTransaction['summary'],
};
const fields = (over: Record<string, unknown> = {}) => ({
  type: 2,
  chainId: 31337n,
  nonce: 7,
  to: null,
  value: 1000000000000000007n,
  data: '0x6001600155',
  gasLimit: 250000n,
  maxFeePerGas: 3000000000n,
  maxPriorityFeePerGas: 1000000000n,
  ...over,
});

describe('Merkle’s signature webhook', () => {
  const job = (launch: SignJob['launch']): SignJob => ({
    intentId: '019ab5e0-11aa-7c3e-9d2f-0a1b2c3d4e5f',
    tenantId: 't',
    webhookUrl: 'https://signer.example/sign',
    tx,
    launchBlock: 41n,
    targetBlock: 42n,
    protocol: 'merkle',
    launch,
  });
  const pendingLaunch = { type: 'public_transaction' as const, txHash: `0x${'7f'.repeat(32)}`, blockNumber: 42n };

  it('asks with hex quantities, the EIP-1559 signing hash of tx, rawTx for a launch transaction, and Merkle’s launch', () => {
    const { request } = merkleRequest(job(pendingLaunch));
    const unsigned = Transaction.from(fields());
    expect(request).toEqual({
      intentId: '019ab5e0-11aa-7c3e-9d2f-0a1b2c3d4e5f',
      launch: { type: 'public_transaction', blockNumber: '42', launchTxHash: pendingLaunch.txHash },
      tx: {
        to: null,
        data: '0x6001600155',
        value: '0xde0b6b3a7640007',
        chainId: '0x7a69',
        gas: '0x3d090',
        nonce: '0x7',
        maxFeePerGas: '0xb2d05e00',
        maxPriorityFeePerGas: '0x3b9aca00',
      },
      rawTx: unsigned.unsignedSerialized,
      hash: unsigned.unsignedHash,
    });
    expect(keccak256(request.rawTx!)).toBe(request.hash);
    // A launch seen in a block: no rawTx ("only when launch type is a transaction").
    expect(merkleRequest(job({ type: 'block', txHash: pendingLaunch.txHash, blockNumber: 40n })).request).not.toHaveProperty('rawTx');
  });

  it('builds the buy from tx and the 65-byte signature of hash, exactly as the wallet would have signed it', async () => {
    const { request, fields: rlp } = merkleRequest(job(pendingLaunch));
    const signature = wallet.signingKey.sign(request.hash).serialized; // r ‖ s ‖ v, v 0x1b / 0x1c
    expect(signature.slice(-2)).toMatch(/^(1b|1c)$/);
    const expected = await wallet.signTransaction(fields());
    expect(verifyMerkleSignature(tx, rlp, { signature })).toEqual({ ok: true, raw: expected, hash: Transaction.from(expected).hash });
  });

  it.each<[string, (sig: Signature) => unknown, RegExp]>([
    ['another key', () => ({ signature: other.signingKey.sign(merkleRequest(job(pendingLaunch)).request.hash).serialized }), /signed by .*, not by the wallet/],
    ['the compact (64-byte) form', (sig) => ({ signature: sig.compactSerialized }), /compact/],
    ['v as 00/01', (sig) => ({ signature: `${sig.serialized.slice(0, 130)}0${sig.yParity}` }), /not 1b or 1c/],
    ['a high s', (sig) => ({ signature: highS(sig) }), /upper half/],
    ['a malformed hex', () => ({ signature: `0x${'zz'.repeat(65)}` }), /65-byte/],
    ['no signature field', () => ({ signedTransactions: ['0x02'] }), /\{"signature"/],
    ['a number', () => ({ signature: 7 }), /\{"signature"/],
  ])('refuses %s as signature_invalid', (_what, answer, detail) => {
    const { request, fields: rlp } = merkleRequest(job(pendingLaunch));
    const result = verifyMerkleSignature(tx, rlp, answer(wallet.signingKey.sign(request.hash)));
    expect(result).toEqual({ ok: false, reason: 'signature_invalid', detail: expect.stringMatching(detail) });
  });
});

/** The same signature with s flipped to the upper half (still valid ECDSA, refused by EIP-2). */
function highS(sig: Signature): string {
  const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
  const s = n - BigInt(sig.s);
  return `${sig.r}${s.toString(16).padStart(64, '0')}${sig.yParity === 0 ? '1c' : '1b'}`;
}

describe('verifySigned', () => {
  it('accepts the transaction signed by the wallet, and names its hash', async () => {
    const raw = await wallet.signTransaction(fields());
    const result = verifySigned(tx, raw);
    expect(result).toEqual({ ok: true, raw, hash: Transaction.from(raw).hash });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['another value', { value: 1000000000000000008n }, 'value'],
    ['another nonce', { nonce: 8 }, 'nonce'],
    ['another chain', { chainId: 1n }, 'chainId'],
    ['a recipient', { to: other.address }, 'to'],
    ['other data', { data: '0x00' }, 'data'],
    ['another gas limit', { gasLimit: 250001n }, 'gasLimit'],
    ['higher fees', { maxFeePerGas: 4000000000n, maxPriorityFeePerGas: 2000000000n }, 'maxFeePerGas, maxPriorityFeePerGas'],
    ['an access list', { accessList: [{ address: other.address, storageKeys: [] }] }, 'accessList'],
  ])('refuses %s', async (_name, over, field) => {
    const result = verifySigned(tx, await wallet.signTransaction(fields(over)));
    expect(result).toMatchObject({ ok: false, reason: 'signature_invalid' });
    expect(!result.ok && result.detail).toBe(`signed transaction differs in ${field}`);
  });

  it('refuses the right transaction signed by another key', async () => {
    const raw = await other.signTransaction(fields());
    expect(verifySigned(tx, raw)).toMatchObject({ ok: false, reason: 'signature_invalid', detail: expect.stringContaining(`signed by ${other.address}`) });
  });

  it('refuses a legacy transaction and anything that is not one', async () => {
    const legacy = await wallet.signTransaction({
      type: 0,
      chainId: 31337n,
      nonce: 7,
      to: null,
      value: 1000000000000000007n,
      data: '0x6001600155',
      gasLimit: 250000n,
      gasPrice: 1n,
    });
    for (const raw of [legacy, 'hello', 42, null, '0x', '0x02zz', `0x02${'00'.repeat(40)}`]) {
      expect(verifySigned(tx, raw)).toMatchObject({ ok: false, reason: 'signature_invalid' });
    }
  });

  it('refuses an unsigned transaction', () => {
    expect(verifySigned(tx, Transaction.from(fields()).unsignedSerialized)).toMatchObject({ ok: false, reason: 'signature_invalid' });
  });
});

describe('DevSigner', () => {
  it('signs for the wallets it holds, verifiably, and for no other', async () => {
    const signer = new DevSigner([wallet.privateKey]);
    expect(signer.holds(wallet.address.toLowerCase())).toBe(true);
    const signed = await signer.sign(tx);
    expect(signed.ok && verifySigned(tx, signed.raw).ok).toBe(true);
    expect(await signer.sign({ ...tx, from: other.address })).toMatchObject({ ok: false, reason: 'no_signer' });
  });
});

describe('signingUnits', () => {
  const job = (id: string, over: { tenantId?: string; webhookUrl?: string | null; webhookBatch?: boolean; signature?: string | null } = {}) => ({
    id,
    intent: { tenantId: 't1', webhookUrl: 'https://a.example/sign', webhookBatch: true, signature: null, ...over },
  });
  const ids = (units: ReturnType<typeof signingUnits<ReturnType<typeof job>>>) =>
    units.map((u) => `${u.batch ? 'batch' : 'one'}:${u.jobs.map((j) => j.id).join(',')}`);

  it('groups batching buys per tenant and webhook, in checking order, and leaves every other buy alone', () => {
    const units = signingUnits([
      job('a'),
      job('b', { webhookBatch: false }),
      job('c', { webhookUrl: 'https://b.example/sign' }),
      job('d'),
      job('e', { tenantId: 't2' }),
      job('f', { webhookUrl: null, webhookBatch: false }),
      job('g', { signature: '0x11' }),
      job('h', { webhookUrl: 'https://b.example/sign' }),
    ]);
    expect(ids(units)).toEqual(['batch:a,d', 'one:b', 'batch:c,h', 'batch:e', 'one:f', 'one:g']);
  });

  it('splits a group at the most buys a request may ask for', () => {
    const units = signingUnits(
      ['a', 'b', 'c', 'd', 'e'].map((id) => job(id)),
      2,
    );
    expect(ids(units)).toEqual(['batch:a,b', 'batch:c,d', 'batch:e']);
  });
});
