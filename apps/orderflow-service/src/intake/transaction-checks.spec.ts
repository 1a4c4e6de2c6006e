import { Transaction, Wallet } from 'ethers';
import { RpcFault } from '../common/json-rpc.js';
import { checkAgainstChain, decodeTransaction } from './transaction-checks.js';

const wallet = Wallet.createRandom();
const to = `0x${'22'.repeat(20)}`;
const base = { chainId: 1, to, value: 5n, gasLimit: 21_000n, nonce: 3 };
const signed = (tx: Transaction) => {
  tx.signature = wallet.signingKey.sign(tx.unsignedHash);
  return tx.serialized;
};
const why = (work: () => unknown) => {
  try {
    work();
    return null;
  } catch (err) {
    return err instanceof RpcFault ? `${err.code} ${err.message}` : String(err);
  }
};

describe('transaction checks', () => {
  it('decodes a signed EIP-1559 transaction: its sender, hash and most gas cost', async () => {
    const raw = await wallet.signTransaction({ ...base, type: 2, maxFeePerGas: 7n, maxPriorityFeePerGas: 1n });
    expect(decodeTransaction(raw, 1024)).toMatchObject({
      from: wallet.address.toLowerCase(),
      to,
      nonce: 3,
      value: 5n,
      maxFeePerGas: 7n,
      hash: Transaction.from(raw).hash,
    });
  });

  it('refuses blob transactions, unsigned ones, ones without a chain id, oversized and undecodable bytes', async () => {
    const blob = Transaction.from({
      ...base,
      type: 3,
      maxFeePerGas: 1n,
      maxPriorityFeePerGas: 1n,
      maxFeePerBlobGas: 1n,
      blobVersionedHashes: [`0x01${'00'.repeat(31)}`],
    });
    expect(why(() => decodeTransaction(signed(blob), 4096))).toMatch(/^-32000 blob transactions/);
    expect(why(() => decodeTransaction(Transaction.from({ ...base, type: 2, maxFeePerGas: 1n }).unsignedSerialized, 4096))).toMatch(/not signed/);
    const legacy = Transaction.from({ to, value: 1n, gasLimit: 21_000n, gasPrice: 1n, nonce: 0, type: 0 });
    expect(why(() => decodeTransaction(signed(legacy), 4096))).toMatch(/not replay-protected/);
    const raw = await wallet.signTransaction({ ...base, type: 2, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n });
    expect(why(() => decodeTransaction(raw, 10))).toMatch(/at most 10 are taken/);
    expect(why(() => decodeTransaction('0x02c0ff', 4096))).toMatch(/could not be decoded/);
  });

  it("checks the chain, the sender's next nonce exactly, and value + gas limit × max fee against the balance", async () => {
    const tx = decodeTransaction(await wallet.signTransaction({ ...base, type: 2, maxFeePerGas: 10n, maxPriorityFeePerGas: 1n }), 4096);
    const cost = 5n + 21_000n * 10n;
    expect(why(() => checkAgainstChain(tx, 1, { nonce: 3, balance: cost }))).toBeNull();
    expect(why(() => checkAgainstChain(tx, 56, { nonce: 3, balance: cost }))).toMatch(/for chain 1, this endpoint is chain 56/);
    expect(why(() => checkAgainstChain(tx, 1, { nonce: 4, balance: cost }))).toMatch(/nonce too low: .* used nonce 3 already \(next nonce 4\)/);
    expect(why(() => checkAgainstChain(tx, 1, { nonce: 2, balance: cost }))).toMatch(/nonce too high/);
    expect(why(() => checkAgainstChain(tx, 1, { nonce: 3, balance: cost - 1n }))).toMatch(
      new RegExp(`insufficient funds: .* holds ${cost - 1n} wei, .* is ${cost} wei`),
    );
  });
});
