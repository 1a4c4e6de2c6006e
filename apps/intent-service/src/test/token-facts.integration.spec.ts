import { ChainRpc } from '@tradeinfra/service-kit';
import { HardhatNode, LocalDex } from '@tradeinfra/test-support';
import { getAddress } from 'ethers';
import { findDeployer } from '../tokens/deployer.js';

/** Who deployed a token, read from a local chain as the record's `token` shows it. */
describe('findDeployer', () => {
  let node: HardhatNode;
  let dex: LocalDex;
  let rpc: ChainRpc;
  const head = async () => BigInt(await rpc.call<string>('eth_blockNumber', []));

  beforeAll(async () => {
    node = await HardhatNode.start({ chainId: 31337 });
    dex = await LocalDex.deploy(node);
    rpc = new ChainRpc(node.url);
  }, 120_000);
  afterAll(() => node?.stop());

  it('finds the creating transaction, its sender, block and time, however many blocks came after', async () => {
    const token = await dex.deployToken('PlainToken', [10n ** 27n]);
    const deployedAt = await head();
    for (let i = 0; i < 37; i++) await rpc.call('evm_mine', []);
    const block = await rpc.call<{ timestamp: string; transactions: { hash: string; to: string | null }[] }>('eth_getBlockByNumber', [
      `0x${deployedAt.toString(16)}`,
      true,
    ]);
    const creation = block.transactions.find((tx) => tx.to === null)!;

    expect(await findDeployer(rpc, token, await head())).toEqual({
      found: { deployer: getAddress(dex.owner), txHash: creation.hash, blockNumber: deployedAt, timestamp: BigInt(block.timestamp) },
    });
  });

  it('tells a token not deployed yet, and one a contract created (a pair), from one it can find', async () => {
    expect(await findDeployer(rpc, '0x00000000000000000000000000000000000bad00', await head())).toBe('not_deployed');
    const token = await dex.deployToken('PlainToken', [10n ** 27n]);
    await dex.launch(token, 10n ** 24n, 10n ** 18n);
    expect(await findDeployer(rpc, await dex.pairOf(token), await head())).toBe('none');
  });
});
