import { createServer, type Server } from 'node:net';
import { getAddress, getCreateAddress } from 'ethers';
import { freePort, HardhatNode } from '@tradeinfra/test-support';
import { Stack } from './harness.js';

const A = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'; // hardhat's first funded account
const B = '0x70997970c51812dc3a010c7d01b3e0d754a0c0a0';
const C = '0x00000000000000000000000000000000000c0de1';
const D = '0x00000000000000000000000000000000000c0de2';
const EMPTY = '0x0000000000000000000000000000000000001234';

const pad = (hex: string, bytes: number) => hex.replace(/^0x/, '').padStart(bytes * 2, '0');
/** Init-less runtime code that reverts with `data`. */
const revertWith = (data: string) => {
  const len = pad((data.length / 2 - 1).toString(16), 2);
  return `0x61${len}600e60003961${len}6000fd${data.slice(2)}`;
};
/** Runtime code that sends `value` wei to `to` with CALL, then stops. */
const sendValue = (to: string, value: number) => `0x6000600060006000${'61' + pad(value.toString(16), 2)}73${pad(to, 20)}5af15000`;
const errorString = (reason: string) => {
  const hex = Buffer.from(reason).toString('hex');
  return `0x08c379a0${pad('20', 32)}${pad(reason.length.toString(16), 32)}${hex.padEnd(64, '0')}`;
};

describe('POST /v1/simulate', () => {
  let node: HardhatNode;
  let stack: Stack;
  let key: string;
  let hanging: Server;
  const simulate = (body: unknown) => stack.request('POST', '/v1/simulate', { key, body });

  beforeAll(async () => {
    node = await HardhatNode.start();
    hanging = createServer(() => undefined); // accepts, never answers
    const hangingPort = await freePort();
    await new Promise<void>((r) => hanging.listen(hangingPort, '127.0.0.1', r));
    stack = await Stack.start({
      RPC_URL_1: node.url,
      HARDFORK_1: 'prague',
      RPC_URL_56: `http://127.0.0.1:${await freePort()}`,
      RPC_URL_137: `http://127.0.0.1:${hangingPort}`,
      SIM_UPSTREAM_TIMEOUT_MS: '500',
    });
    key = await stack.createKey({ scopes: ['simulate'] });
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    await node?.stop();
    hanging?.close();
  });

  it('simulates a transfer like a receipt would report it, with what it changed and an id', async () => {
    const head = BigInt(await node.rpc.call<string>('eth_blockNumber'));
    const [balanceA, balanceB, nonceA] = await Promise.all([
      node.rpc.call<string>('eth_getBalance', [A, 'latest']),
      node.rpc.call<string>('eth_getBalance', [B, 'latest']),
      node.rpc.call<string>('eth_getTransactionCount', [A, 'latest']),
    ]);
    const res = await simulate({ chainId: 1, calls: [{ from: A, to: B, value: '1000', data: '0x' }] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ chainId: 1, blockNumber: `0x${head.toString(16)}` });
    expect(res.body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(Number.isInteger(res.body.processTime)).toBe(true);
    expect(res.body.calls).toEqual([
      {
        logs: [],
        gasUsed: '0x5208',
        result: '',
        status: 1,
        internalTransfers: [],
        // Gas is free in simulation: the sender pays only the value.
        updated: {
          accounts: {
            [getAddress(A)]: { nonce: Number(nonceA) + 1, balance: `0x${(BigInt(balanceA) - 1000n).toString(16)}` },
            [getAddress(B)]: { balance: `0x${(BigInt(balanceB) + 1000n).toString(16)}` },
          },
        },
      },
    ]);
    const again = await simulate({ chainId: 1, calls: [{ from: A, to: B, value: '1000', data: '0x' }] });
    expect(again.body.id).not.toBe(res.body.id);
  });

  it('takes gasLimit as another name for gas, and refuses both when they differ', async () => {
    const named = await simulate({
      chainId: 1,
      calls: [
        { from: A, to: B, gasLimit: 21000 },
        { from: A, to: B, gas: '0x5208', gasLimit: 21000 },
      ],
    });
    expect(named.status).toBe(200);
    expect(named.body.calls.map((c: { status: number }) => c.status)).toEqual([1, 1]);
    const tooLittle = await simulate({ chainId: 1, calls: [{ from: A, to: B, gasLimit: 20999 }] });
    expect(tooLittle.status).toBe(400);
    const differ = await simulate({ chainId: 1, calls: [{ from: A, to: B, gas: 21000, gasLimit: 30000 }] });
    expect(differ.status).toBe(400);
    expect(differ.body.details).toEqual([{ path: 'calls.0.gasLimit', message: 'differs from gas; send one of them' }]);
  });

  it('refuses gas above the cap and init code above EIP-3860’s limit before running anything, as a node would', async () => {
    const gasLimit = BigInt((await node.rpc.call<{ gasLimit: string }>('eth_getBlockByNumber', ['latest', false])).gasLimit);
    const over = await simulate({
      chainId: 1,
      calls: [
        { from: A, to: B },
        { from: A, to: B, gasLimit: (gasLimit + 1n).toString() },
      ],
    });
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({
      name: 'ValidationError',
      details: [{ path: 'calls.1.gasLimit', message: `must be at most ${gasLimit}: the block gas limit` }],
    });
    const initCode = `0x${'00'.repeat(49_153)}`;
    const big = await simulate({ chainId: 1, calls: [{ from: A, data: initCode }] });
    expect(big.status).toBe(400);
    expect(big.body).toMatchObject({
      name: 'ValidationError',
      details: [{ path: 'calls.0.data', message: 'is 49153 bytes of init code; a creation may carry at most 49152 (EIP-3860, on prague)' }],
    });
    expect((await simulate({ chainId: 1, calls: [{ from: A, data: `0x${'00'.repeat(49_152)}` }] })).status).toBe(200);
  });

  it('names the contract a creation made; what a call changed continues the state when sent back as overrides', async () => {
    // Init code that stores 0x2a in slot 0 and deploys a contract returning slot 0.
    const runtime = '60005460005260206000f3';
    const init = `0x602a600055600b6011600039600b6000f3${runtime}`;
    const nonce = Number(await node.rpc.call<string>('eth_getTransactionCount', [A, 'latest']));
    const created = await simulate({ chainId: 1, calls: [{ from: A, data: init }] });
    expect(created.status).toBe(200);
    const [call] = created.body.calls;
    const address = getCreateAddress({ from: A, nonce });
    expect(call).toMatchObject({ status: 1, addressCreated: address });
    expect(call.updated).toEqual({
      accounts: { [getAddress(A)]: { nonce: nonce + 1 }, [address]: { nonce: 1 } },
      contractCodes: { [address]: `0x${runtime}` },
      storage: { [address]: { [`0x${'0'.repeat(64)}`]: `0x${'0'.repeat(62)}2a` } },
    });
    // The state after that call, from its `updated` alone: the contract answers 0x2a.
    const continued = await simulate({ chainId: 1, overrides: call.updated, calls: [{ from: B, to: address }] });
    expect(continued.body.calls[0]).toMatchObject({ status: 1, result: `0x${'0'.repeat(62)}2a` });
    // A creation that fails names nothing.
    const failed = await simulate({ chainId: 1, calls: [{ from: A, data: '0x60006000fd' }] });
    expect(failed.body.calls[0]).toMatchObject({ status: 0, error: { type: 'revert', message: 'execution reverted' } });
    expect(failed.body.calls[0].addressCreated).toBeUndefined();
  });

  it('needs the simulate scope', async () => {
    const other = await stack.createKey({ scopes: ['intents:read'] });
    const res = await stack.request('POST', '/v1/simulate', { key: other, body: { chainId: 1, calls: [{ from: A, to: B }] } });
    expect(res.status).toBe(403);
  });

  it('applies every override kind before the first call', async () => {
    const res = await simulate({
      chainId: 1,
      overrides: {
        accounts: { [EMPTY]: { balance: '0xde0b6b3a7640000', nonce: 3 } },
        contractCodes: { [C]: '0x60005460005260206000f3' },
        storage: { [C]: { '0x0': '0x2a' } },
      },
      calls: [
        { from: EMPTY, to: C, nonce: 3 },
        { from: EMPTY, to: B, value: '1000000000000000000', nonce: 4 },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.calls[0]).toMatchObject({ status: 1, result: `0x${pad('2a', 32)}` });
    expect(res.body.calls[1]).toMatchObject({ status: 1 });
  });

  it('fails the whole request on a nonce mismatch, with the spec message', async () => {
    const res = await simulate({
      chainId: 1,
      overrides: { accounts: { [EMPTY]: { nonce: 5 } } },
      calls: [
        { from: EMPTY, to: B, nonce: 5 },
        { from: EMPTY, to: B, nonce: 7 },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: true, name: 'Error', message: 'Nonce mismatch. Expected 6, got 7 on call #1', details: null });
  });

  it('reads bare JSON integers exactly at any size (a balance of 123456789012345678901 wei)', async () => {
    const wei = 123456789012345678901n;
    const raw = (value: bigint) =>
      `{"chainId": 1, "overrides": {"accounts": {"${EMPTY}": {"balance": ${wei}}}}, "calls": [{"from": "${EMPTY}", "to": "${B}", "value": ${value}, "gas": 21000}]}`;
    // All of it can move; one wei more cannot (a double would have rounded both to the same number).
    const exact = await stack.request('POST', '/v1/simulate', { key, rawBody: raw(wei), headers: { 'content-type': 'application/json' } });
    expect(exact.status).toBe(200);
    expect(exact.body.calls[0]).toMatchObject({ status: 1, gasUsed: '0x5208' });
    const over = await stack.request('POST', '/v1/simulate', { key, rawBody: raw(wei + 1n), headers: { 'content-type': 'application/json' } });
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ error: true, name: 'Error' });
  });

  it('refuses a nonce or chain id beyond 2^53-1, saying so', async () => {
    const res = await stack.request('POST', '/v1/simulate', {
      key,
      rawBody: `{"chainId": 1, "calls": [{"from": "${EMPTY}", "to": "${B}", "nonce": 18446744073709551616}]}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([
      { path: 'calls.0.nonce', message: 'must be an integer nonce (18446744073709551616 is beyond 2^53-1, the largest integer this field takes)' },
    ]);
  });

  it('decodes revert reasons and keeps the raw data', async () => {
    const custom = '0xdeadbeef0000000000000000000000000000000000000000000000000000000000000001';
    const panic = `0x4e487b71${pad('11', 32)}`;
    const codes = { [C]: revertWith(errorString('not enough')), [D]: revertWith(panic), [EMPTY]: revertWith(custom), [B]: '0x60006000fd' };
    const res = await simulate({ chainId: 1, overrides: { contractCodes: codes }, calls: [C, D, EMPTY, B].map((to) => ({ from: A, to })) });
    expect(res.status).toBe(200);
    expect(res.body.calls.map((c: { status: number; error: unknown }) => [c.status, c.error])).toEqual([
      [0, { type: 'revert', message: 'not enough' }],
      [0, { type: 'panic', message: 'Panic(0x11): arithmetic overflow or underflow' }],
      [0, { type: 'revert', message: custom }],
      [0, { type: 'revert', message: 'execution reverted' }],
    ]);
    expect(res.body.calls[0].result).toBe(errorString('not enough'));
    expect(res.body.calls[3].result).toBe('');
  });

  it('reports value moved by nested calls, and drops what a reverted frame moved', async () => {
    const res = await simulate({
      chainId: 1,
      overrides: {
        accounts: { [C]: { balance: 5000 } },
        contractCodes: { [C]: sendValue(B, 1000), [D]: sendValue(EMPTY, 7) },
      },
      calls: [
        { from: A, to: C },
        { from: A, to: D }, // D has no balance: its CALL fails without a frame
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.calls[0].internalTransfers).toEqual([
      { from: expect.stringMatching(new RegExp(C.slice(2), 'i')), to: expect.stringMatching(new RegExp(B.slice(2), 'i')), amount: '0x3e8' },
    ]);
    expect(res.body.calls[1]).toMatchObject({ status: 1, internalTransfers: [] });

    const reverted = await simulate({
      chainId: 1,
      overrides: { accounts: { [C]: { balance: 5000 } }, contractCodes: { [C]: sendValue(D, 1000), [D]: '0x60006000fd' } },
      calls: [{ from: A, to: C }],
    });
    expect(reverted.body.calls[0]).toMatchObject({ status: 1, internalTransfers: [] });
  });

  it('ends an endless loop by gas and keeps serving', async () => {
    const res = await simulate({ chainId: 1, overrides: { contractCodes: { [C]: '0x5b600056' } }, calls: [{ from: A, to: C, gas: 5_000_000 }] });
    expect(res.status).toBe(200);
    expect(res.body.calls[0]).toMatchObject({ status: 0, error: { type: 'out_of_gas', message: 'out of gas' }, gasUsed: `0x${(5_000_000).toString(16)}` });
    expect((await simulate({ chainId: 1, calls: [{ from: A, to: B }] })).status).toBe(200);
  });

  it('keeps concurrent simulations apart', async () => {
    const runs = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        simulate({
          chainId: 1,
          overrides: { contractCodes: { [C]: '0x60005460005260206000f3' }, storage: { [C]: { '0x0': `0x${(i + 1).toString(16)}` } } },
          calls: [{ from: A, to: C }],
        }),
      ),
    );
    expect(runs.map((r) => BigInt(r.body.calls[0].result))).toEqual(Array.from({ length: 10 }, (_, i) => BigInt(i + 1)));
  });

  it('accepts block_number and blockNumber, refuses them different, and refuses a future block', async () => {
    const head = Number(BigInt(await node.rpc.call<string>('eth_blockNumber')));
    expect((await simulate({ chainId: 1, block_number: head, blockNumber: head, calls: [{ from: A, to: B }] })).status).toBe(200);
    expect((await simulate({ chainId: 1, block_number: head, calls: [{ from: A, to: B }] })).body.blockNumber).toBe(`0x${head.toString(16)}`);
    const differ = await simulate({ chainId: 1, block_number: head, blockNumber: head + 1, calls: [{ from: A, to: B }] });
    expect(differ.status).toBe(400);
    expect(differ.body.details).toEqual([{ path: 'blockNumber', message: 'differs from block_number; send one of them' }]);
    const future = await simulate({ chainId: 1, blockNumber: head + 1000, calls: [{ from: A, to: B }] });
    expect(future.status).toBe(400);
    expect(future.body).toMatchObject({ name: 'ValidationError', details: [{ path: 'blockNumber' }] });
  });

  it.each([
    ['chainId', { chainId: 10 }],
    ['chainId', { chainId: '1' }],
    ['calls', { calls: [] }],
    ['calls', { calls: Array(101).fill({ from: A, to: B }) }],
    ['calls.0.from', { calls: [{ from: '0x12', to: B }] }],
    ['calls.0.data', { calls: [{ from: A, to: B, data: '0xabc' }] }],
    ['calls.0.nonce', { calls: [{ from: A, to: B, nonce: -1 }] }],
    ['calls.0.value', { calls: [{ from: A, to: B, value: '-5' }] }],
    ['calls.0.extra', { calls: [{ from: A, to: B, extra: 1 }] }],
    ['overrides.accounts.nope', { overrides: { accounts: { nope: { balance: 1 } } } }],
    ['overrides.accounts.' + B + '.balance', { overrides: { accounts: { [B]: { balance: 'lots' } } } }],
    ['overrides.contractCodes.' + C, { overrides: { contractCodes: { [C]: 'abc' } } }],
    ['overrides.storage.' + C + '.slot', { overrides: { storage: { [C]: { slot: '0x1' } } } }],
    ['overrides.storage.' + C + '.0x1', { overrides: { storage: { [C]: { '0x1': '0x' + 'f'.repeat(65) } } } }],
    ['blockNumber', { blockNumber: -1 }],
  ])('refuses bad input naming %s', async (path, patch) => {
    const res = await simulate({ chainId: 1, calls: [{ from: A, to: B }], ...patch });
    expect(res.status).toBe(400);
    expect(res.body.name).toBe('ValidationError');
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it('answers 502 within its bound when the chain RPC is down or hangs', async () => {
    const refused = await simulate({ chainId: 56, calls: [{ from: A, to: B }] });
    expect(refused.status).toBe(502);
    expect(refused.body).toMatchObject({ error: true, name: 'UpstreamError' });
    const hung = await simulate({ chainId: 137, calls: [{ from: A, to: B }] });
    expect(hung.status).toBe(502);
    expect(hung.body.message).toMatch(/did not answer within 500 ms/);
    expect((await simulate({ chainId: 1, calls: [{ from: A, to: B }] })).status).toBe(200);
  });
});
