import { HDNodeWallet, Mnemonic, Wallet, type TransactionRequest } from 'ethers';
import { DEV_MNEMONIC, HardhatNode } from '@tradeinfra/test-support';
import { rebuildRawTransaction, UnverifiableTransaction, type RpcTransaction } from './raw-transaction.js';

/** Transactions of every type a sender can broadcast, rebuilt from what a real node reports while they are pending. */
describe('rebuildRawTransaction on a real node', () => {
  let node: HardhatNode;
  let sender: Wallet;
  let delegate: Wallet;
  let nonce = 0;
  const CHAIN_ID = 1;

  beforeAll(async () => {
    node = await HardhatNode.start({ chainId: CHAIN_ID, hardfork: 'prague' });
    const root = HDNodeWallet.fromMnemonic(Mnemonic.fromPhrase(DEV_MNEMONIC), "m/44'/60'/0'/0/5");
    sender = new Wallet(root.privateKey);
    delegate = new Wallet(HDNodeWallet.fromMnemonic(Mnemonic.fromPhrase(DEV_MNEMONIC), "m/44'/60'/0'/0/6").privateKey);
    nonce = Number(await node.rpc.call<string>('eth_getTransactionCount', [sender.address, 'latest']));
    await node.rpc.call('evm_setAutomine', [false]);
  }, 60_000);
  afterAll(() => node?.stop());

  const base = (): TransactionRequest => ({
    chainId: CHAIN_ID,
    nonce: nonce++,
    to: '0x000000000000000000000000000000000000bEEF',
    value: 12345n,
    data: '0xdeadbeef',
    gasLimit: 100_000n,
  });

  async function pending(request: TransactionRequest): Promise<{ raw: string; tx: RpcTransaction }> {
    const raw = await sender.signTransaction(request);
    const hash = await node.rpc.call<string>('eth_sendRawTransaction', [raw]);
    const tx = await node.rpc.call<RpcTransaction>('eth_getTransactionByHash', [hash]);
    expect(tx.blockNumber ?? null).toBeNull();
    return { raw, tx };
  }

  it.each([
    ['legacy (EIP-155)', { type: 0, gasPrice: 7n * 10n ** 9n }],
    [
      'access list (type 1)',
      {
        type: 1,
        gasPrice: 7n * 10n ** 9n,
        accessList: [{ address: '0x000000000000000000000000000000000000bEEF', storageKeys: [`0x${'01'.padStart(64, '0')}`] }],
      },
    ],
    ['dynamic fee (type 2)', { type: 2, maxFeePerGas: 9n * 10n ** 9n, maxPriorityFeePerGas: 2n * 10n ** 9n }],
  ])('gives back the exact signed bytes of a pending %s transaction', async (_, fields) => {
    const { raw, tx } = await pending({ ...base(), ...fields });
    expect(rebuildRawTransaction(tx)).toBe(raw);
  });

  it('gives back the exact signed bytes of a pending set-code transaction (type 4, EIP-7702)', async () => {
    const request = { ...base(), type: 4, maxFeePerGas: 9n * 10n ** 9n, maxPriorityFeePerGas: 10n ** 9n };
    const authorization = await delegate.authorize({ address: '0x000000000000000000000000000000000000c0de', nonce: 0n, chainId: BigInt(CHAIN_ID) });
    const { raw, tx } = await pending({ ...request, authorizationList: [authorization] });
    expect(tx.authorizationList).toHaveLength(1);
    expect(rebuildRawTransaction(tx)).toBe(raw);
  });

  it('refuses fields that do not hash to the transaction (a node or feed that altered one)', async () => {
    const { tx } = await pending({ ...base(), type: 2, maxFeePerGas: 9n * 10n ** 9n, maxPriorityFeePerGas: 10n ** 9n });
    for (const altered of [
      { value: '0x1' },
      { input: '0x' },
      { gas: '0x5208' },
      { maxPriorityFeePerGas: '0x0' },
      { to: '0x000000000000000000000000000000000000dEaD' },
    ]) {
      expect(() => rebuildRawTransaction({ ...tx, ...altered })).toThrow(UnverifiableTransaction);
    }
    // The hash matches but the claimed sender is someone else.
    expect(() => rebuildRawTransaction({ ...tx, from: delegate.address })).toThrow(/signed by/);
    // A broken signature.
    expect(() => rebuildRawTransaction({ ...tx, yParity: '0x7', v: '0x7' })).toThrow(UnverifiableTransaction);
  });

  it('refuses blob transactions, whose sidecar a node does not report', () => {
    const blob = { hash: `0x${'0'.repeat(64)}`, type: '0x3', nonce: '0x0', from: sender.address, to: sender.address, value: '0x0', input: '0x', gas: '0x5208' };
    expect(() => rebuildRawTransaction({ ...blob, v: '0x0', r: '0x1', s: '0x1' })).toThrow(/blob/);
  });
});
