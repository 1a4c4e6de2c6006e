import { createServer, type Server } from 'node:http';
import { devWallet, eventually, HardhatNode } from '@tradeinfra/test-support';
import { Transaction, Wallet } from 'ethers';
import { WebSocketServer } from 'ws';
import { ChainRpc } from '../chain/chain-rpc.js';
import { WsSender } from '../chain/ws-sender.js';
import { RpcSubmitter } from '../execution/submitter.js';

/*
 * Buys sent one by one to a node that may reorder a batch (hardhat) go over the chain's WebSocket
 * when it has one: in the order given, each refusal reported as over HTTP, and the rest over HTTP
 * when the WebSocket drops in the middle of a round.
 */

const ONE_BY_ONE = () => Promise.resolve({ orderedBatches: false });

describe('RpcSubmitter over the chain’s WebSocket (hardhat)', () => {
  let node: HardhatNode;
  let sender: WsSender;

  beforeAll(async () => {
    node = await HardhatNode.start({ chainId: 31337, accounts: 41 });
    await node.rpc.call('evm_setAutomine', [false]);
    sender = new WsSender(node.url.replace(/^http/, 'ws'));
    await eventually('the WebSocket to the node', () => sender.connected);
  }, 120_000);
  afterAll(async () => {
    sender?.close();
    await node?.stop();
  });

  /** One transfer from each of dev accounts `from…from+n-1`, signed for the next block. */
  const transfers = async (from: number, n: number, sign: (i: number) => Wallet | ReturnType<typeof devWallet> = devWallet) =>
    Promise.all(
      Array.from({ length: n }, async (_, k) => {
        const wallet = sign(from + k);
        const nonce = Number(await node.rpc.call<string>('eth_getTransactionCount', [wallet.address, 'pending']));
        const raw = await wallet.signTransaction({
          type: 2,
          chainId: 31337,
          nonce,
          to: devWallet(0).address,
          value: 1n,
          gasLimit: 21_000,
          maxFeePerGas: 10n ** 9n,
          maxPriorityFeePerGas: 0n,
        });
        return { intentId: `i${from + k}`, raw, hash: Transaction.from(raw).hash! };
      }),
    );

  /** The node's pending block holds exactly `hashes`, in that order; then it is mined. */
  const expectMinedInOrder = async (hashes: string[]) => {
    const pending = await node.rpc.call<{ transactions: string[] }>('eth_getBlockByNumber', ['pending', false]);
    expect(pending.transactions).toEqual(hashes);
    await node.rpc.call('evm_mine');
  };

  /** The node's HTTP client, recording what it is sent. */
  const recording = (sent: string[]) =>
    ({
      call: (method: string, params: unknown[] = []) => (sent.push(String(params[0])), node.rpc.call(method, params)),
      batch: node.rpc.batch.bind(node.rpc),
    }) as Pick<ChainRpc, 'call' | 'batch'>;

  it('sends every buy over the WebSocket in the order given: the pending block holds them in that order', async () => {
    const buys = await transfers(1, 30);
    const http: string[] = [];
    const outcome = await new RpcSubmitter(recording(http), ONE_BY_ONE, sender).submit(buys);
    expect([...outcome.values()].every((v) => v === null)).toBe(true);
    expect(http).toEqual([]);
    await expectMinedInOrder(buys.map((b) => b.hash));
  });

  it('reports the node’s refusal of one buy as over HTTP and sends the rest', async () => {
    const [first, , last] = await transfers(31, 3);
    // A wallet with no ether: the node refuses its transfer.
    const [broke] = await transfers(34, 1, () => Wallet.createRandom() as unknown as Wallet);
    const buys = [first!, { ...broke!, intentId: 'broke' }, last!];
    const http: string[] = [];
    const outcome = await new RpcSubmitter(recording(http), ONE_BY_ONE, sender).submit(buys);
    expect(http).toEqual([]);
    expect(outcome.get(first!.intentId)).toBeNull();
    expect(outcome.get(last!.intentId)).toBeNull();
    expect(outcome.get('broke')).toMatch(/^eth_sendRawTransaction: .*(funds|balance)/i);
    await expectMinedInOrder([first!.hash, last!.hash]);
  });

  it('sends the rest over HTTP, still in order, when the WebSocket drops in the middle of a round', async () => {
    // A WebSocket that passes the first send on to the node, then drops the connection.
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    wss.on('connection', (socket) => {
      let seen = 0;
      socket.on('message', (data) => {
        if (++seen > 1) return socket.terminate();
        const { id, params } = JSON.parse(String(data)) as { id: number; params: [string] };
        void node.rpc.call<string>('eth_sendRawTransaction', params).then((result) => socket.send(JSON.stringify({ jsonrpc: '2.0', id, result })));
      });
    });
    await new Promise((resolve) => wss.once('listening', resolve));
    const dropping = new WsSender(`ws://127.0.0.1:${(wss.address() as { port: number }).port}`);
    await eventually('the WebSocket', () => dropping.connected);
    const http: string[] = [];
    try {
      const buys = await transfers(35, 5);
      const outcome = await new RpcSubmitter(recording(http), ONE_BY_ONE, dropping).submit(buys);
      expect([...outcome.values()].every((v) => v === null)).toBe(true);
      // The second went to the WebSocket unanswered, then again over HTTP, with the rest.
      expect(http).toEqual(buys.slice(1).map((b) => b.raw));
      await expectMinedInOrder(buys.map((b) => b.hash));
    } finally {
      dropping.close();
      await new Promise((resolve) => wss.close(resolve));
    }
  });

  it('sends everything over HTTP when the WebSocket cannot be opened', async () => {
    const refused = await new Promise<Server>((resolve) => {
      const s = createServer((_, res) => res.writeHead(404).end()).listen(0, '127.0.0.1', () => resolve(s));
    });
    const nowhere = new WsSender(`ws://127.0.0.1:${(refused.address() as { port: number }).port}`);
    try {
      const buys = await transfers(35, 3);
      const outcome = await new RpcSubmitter(node.rpc, ONE_BY_ONE, nowhere).submit(buys);
      expect([...outcome.values()].every((v) => v === null)).toBe(true);
      await expectMinedInOrder(buys.map((b) => b.hash));
    } finally {
      nowhere.close();
      await new Promise((resolve) => refused.close(resolve));
    }
  });
});
