import { RpcError, RpcUnavailable } from '@tradeinfra/service-kit';
import { nodeTraits } from './node-traits.js';

/** A node answering web3_clientVersion with `answer`, counting how often it was asked. */
function node(answer: () => Promise<string>) {
  let asked = 0;
  return {
    rpc: {
      call: <T>() => {
        asked++;
        return answer() as Promise<T>;
      },
    },
    asked: () => asked,
  };
}

const AUTO = { pendingNonces: 'auto', orderedBatches: 'auto' } as const;

describe('nodeTraits', () => {
  it('reads one pending block on hardhat and sends it buys one by one, asking the node once', async () => {
    const hardhat = node(() => Promise.resolve('HardhatNetwork/2.29.1/@nomicfoundation/edr/0.3.8'));
    const traits = nodeTraits(AUTO, hardhat.rpc);
    expect(await traits()).toEqual({ pendingNonces: 'block', orderedBatches: false });
    expect(await traits()).toEqual({ pendingNonces: 'block', orderedBatches: false });
    expect(hardhat.asked()).toBe(1);
  });

  it('asks geth each sender’s pending count and sends it a round’s buys in one batch', async () => {
    const geth = node(() => Promise.resolve('Geth/v1.16.7-stable-b9f3a3d9/linux-amd64/go1.24.1'));
    expect(await nodeTraits(AUTO, geth.rpc)()).toEqual({ pendingNonces: 'sender', orderedBatches: true });
  });

  it('treats a node it does not know the safe way: pending counts, buys one by one', async () => {
    const reth = node(() => Promise.resolve('reth/v1.9.0-0b2c/x86_64-unknown-linux-gnu'));
    expect(await nodeTraits(AUTO, reth.rpc)()).toEqual({ pendingNonces: 'sender', orderedBatches: false });
  });

  it('keeps what is configured without asking, and resolves only what is left on auto', async () => {
    const silent = node(() => Promise.reject(new Error('down')));
    expect(await nodeTraits({ pendingNonces: 'block', orderedBatches: 'yes' }, silent.rpc)()).toEqual({ pendingNonces: 'block', orderedBatches: true });
    expect(await nodeTraits({ pendingNonces: 'sender', orderedBatches: 'no' }, silent.rpc)()).toEqual({ pendingNonces: 'sender', orderedBatches: false });
    expect(silent.asked()).toBe(0);
    const hardhat = node(() => Promise.resolve('HardhatNetwork/2.29.1'));
    expect(await nodeTraits({ pendingNonces: 'sender', orderedBatches: 'auto' }, hardhat.rpc)()).toEqual({ pendingNonces: 'sender', orderedBatches: false });
  });

  it('asks again after the node failed to answer', async () => {
    const silent = node(() => Promise.reject(new RpcUnavailable('unreachable', 'web3_clientVersion: down', 'ECONNREFUSED')));
    const traits = nodeTraits(AUTO, silent.rpc);
    await expect(traits()).rejects.toThrow('down');
    await expect(traits()).rejects.toThrow('down');
    expect(silent.asked()).toBe(2);
  });

  it('takes the safe ways, once, with a node that will not say what it is', async () => {
    const secretive = node(() => Promise.reject(new RpcError('web3_clientVersion', -32601, 'the method web3_clientVersion does not exist')));
    const traits = nodeTraits(AUTO, secretive.rpc);
    expect(await traits()).toEqual({ pendingNonces: 'sender', orderedBatches: false });
    expect(await traits()).toEqual({ pendingNonces: 'sender', orderedBatches: false });
    expect(secretive.asked()).toBe(1);
  });
});
