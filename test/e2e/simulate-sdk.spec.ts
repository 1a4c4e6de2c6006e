import { getAddress, getCreateAddress } from 'ethers';
import { parseJson } from '@tradeinfra/contracts';
import { HardhatNode } from '@tradeinfra/test-support';
import { Stack } from './harness.js';

/**
 * `POST /v1/simulate` driven exactly as Merkle's client SDKs drive it, and its answers decoded
 * as their types would decode them:
 *
 * - Go, github.com/merkle3/merkle-sdk-go `merkle/simulations.go`, `http.go`, `bigint.go`:
 *   `Authorization: Token <key>`; `encoding/json` of `SimulationBundle` (fields in struct order,
 *   `omitempty` drops a zero nonce or gasLimit, `Balance *int` and `BlockNumber *int` are bare
 *   JSON integers); the answer goes through `json.Unmarshal` into `SimulationResult`, where an
 *   `int` must be a JSON integer, a `string` a JSON string, `*BigInt` a decimal or 0x string (or
 *   number), `Error *ErrorDetails` an object `{type, message}`: one mismatch fails the whole answer.
 * - TypeScript, merkle3/merkle-sdk-ts `src/simulation.ts`: `JSON.stringify(bundle)` (balances as
 *   strings, gasLimit and nonce as numbers), the answer cast to `SimulationResult` (`id`, and per
 *   call `updated`, `error?: {type, message}`, `addressCreated?`).
 *
 * The chain is a fresh local node with chain id 1 on Osaka (low block numbers, today's time):
 * the service picks the fork itself, as it would for mainnet.
 */

const A = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'; // hardhat's first funded account
const B = '0x70997970c51812dc3a010c7d01b3e0d754a0c0a0';
const FRESH = '0x00000000000000000000000000000000000f2e51';
const REVERTER = '0x000000000000000000000000000000000000dead';

// ---------------------------------------------------------------------------------------------
// Go's encoding/json, as far as SimulationResult goes

class GoDecodeError extends Error {}

const fail = (path: string, what: string, v: unknown): never => {
  throw new GoDecodeError(`json: cannot unmarshal ${JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? x.toString() : x))} into Go ${what} (${path})`);
};
/** `int`: a JSON integer (the raw text is checked for fractions and exponents separately); null leaves 0. */
const goInt = (v: unknown, path: string): number =>
  v === null || v === undefined ? 0 : typeof v === 'number' && Number.isSafeInteger(v) ? v : fail(path, 'int', v);
/** `string`: a JSON string; null leaves "". */
const goString = (v: unknown, path: string): string => (v === null || v === undefined ? '' : typeof v === 'string' ? v : fail(path, 'string', v));
/** `*string`. */
const goStringPtr = (v: unknown, path: string): string | null => (v === null || v === undefined ? null : goString(v, path));
/** `*BigInt` (merkle/bigint.go): quotes trimmed, `0x` → base 16, else base 10, through big.Int.SetString. */
function goBigInt(v: unknown, path: string): bigint | null {
  if (v === null || v === undefined) return null;
  if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'bigint') return fail(path, '*BigInt', v);
  const s = String(v);
  const hex = s.startsWith('0x');
  const digits = hex ? s.slice(2) : s;
  if (!(hex ? /^[0-9a-fA-F]+$/ : /^[+-]?[0-9]+$/).test(digits)) return fail(path, '*BigInt (SetString)', v);
  return BigInt(hex ? `0x${digits}` : digits);
}
const goSlice = <T>(v: unknown, path: string, item: (x: unknown, p: string) => T): T[] =>
  v === null || v === undefined ? [] : Array.isArray(v) ? v.map((x, i) => item(x, `${path}[${i}]`)) : fail(path, 'slice', v);
const goStruct = (v: unknown, path: string): Record<string, unknown> =>
  v === null || v === undefined ? {} : typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : fail(path, 'struct', v);

interface GoCall {
  Logs: { Address: string; Topics: string[]; Data: string }[];
  GasUsed: bigint | null;
  Result: string;
  AddressCreated: string | null;
  Status: number;
  Error: { Type: string; Message: string } | null;
  InternalTransfers: { From: string; To: string; Amount: bigint | null }[];
}
interface GoResult {
  ChainId: number;
  BlockNumber: bigint | null;
  ProcessTime: number;
  Calls: GoCall[];
}

/** merkle.SimulationResult from the response body, or the error json.Unmarshal would give. */
function decodeGo(text: string): GoResult {
  // Go's int refuses 1.5 or 1e3: the answer may hold integers only.
  if (/[:[,]\s*-?\d+(\.\d+)?[eE.]/.test(text)) throw new GoDecodeError('json: a number with a fraction or exponent where Go expects an int');
  const r = goStruct(parseJson(text), '$');
  return {
    ChainId: goInt(r.chainId, 'chainId'),
    BlockNumber: goBigInt(r.blockNumber, 'blockNumber'),
    ProcessTime: goInt(r.processTime, 'processTime'),
    Calls: goSlice(r.calls, 'calls', (c, p) => {
      const call = goStruct(c, p);
      const error = call.error === null || call.error === undefined ? null : goStruct(call.error, `${p}.error`);
      return {
        Logs: goSlice(call.logs, `${p}.logs`, (l, lp) => {
          const log = goStruct(l, lp);
          return {
            Address: goString(log.address, `${lp}.address`),
            Topics: goSlice(log.topics, `${lp}.topics`, goString),
            Data: goString(log.data, `${lp}.data`),
          };
        }),
        GasUsed: goBigInt(call.gasUsed, `${p}.gasUsed`),
        Result: goString(call.result, `${p}.result`),
        AddressCreated: goStringPtr(call.addressCreated, `${p}.addressCreated`),
        Status: goInt(call.status, `${p}.status`),
        Error: error && { Type: goString(error.type, `${p}.error.type`), Message: goString(error.message, `${p}.error.message`) },
        InternalTransfers: goSlice(call.internalTransfers, `${p}.internalTransfers`, (t, tp) => {
          const transfer = goStruct(t, tp);
          return { From: goString(transfer.from, `${tp}.from`), To: goString(transfer.to, `${tp}.to`), Amount: goBigInt(transfer.amount, `${tp}.amount`) };
        }),
      };
    }),
  };
}

// ---------------------------------------------------------------------------------------------

describe('Merkle’s SDKs against POST /v1/simulate', () => {
  let node: HardhatNode;
  let stack: Stack;
  let key: string;
  /** What the SDKs send: `Authorization: Token <key>`, a JSON body. */
  const post = (rawBody: string) =>
    stack.request('POST', '/v1/simulate', { rawBody, headers: { 'content-type': 'application/json', authorization: `Token ${key}` } });

  beforeAll(async () => {
    node = await HardhatNode.start({ hardfork: 'osaka' });
    // No HARDFORK_1: the service goes by mainnet's schedule, as for mainnet itself.
    stack = await Stack.start({ RPC_URL_1: node.url });
    key = await stack.createKey({ scopes: ['simulate'] });
    // Code that reverts with Error("nope").
    const reason = Buffer.from('nope').toString('hex').padEnd(64, '0');
    const revertData = `08c379a0${'20'.padStart(64, '0')}${'4'.padStart(64, '0')}${reason}`;
    await node.rpc.call('hardhat_setCode', [
      REVERTER,
      `0x7f${revertData.slice(0, 64)}6000527f${revertData.slice(64, 128)}6020527f${revertData.slice(128, 192)}60405260646000fd`,
    ]);
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    await node?.stop();
  });

  it('Go SDK: a bundle with a creation, a revert and per-call overrides decodes into SimulationResult, reverted call and all', async () => {
    const head = Number(await node.rpc.call<string>('eth_blockNumber'));
    const nonce = Number(await node.rpc.call<string>('eth_getTransactionCount', [A, 'latest']));
    // encoding/json of merkle.SimulationBundle: chainId, calls, blockNumber, overrides; per call
    // from, to, value, nonce, data, gasLimit, overrides, zero values left out (omitempty).
    const init = '0x602a600055600b6011600039600b6000f360005460005260206000f3';
    const raw =
      `{"chainId":1,"calls":[` +
      `{"from":"${A}","data":"${init}"},` +
      `{"from":"${A}","to":"${REVERTER}","data":"0x12345678","gasLimit":100000},` +
      `{"from":"${FRESH}","to":"${B}","value":"1000000000000000000","gasLimit":21000,"overrides":{"accounts":{"${FRESH}":{"balance":5000000000000000000}}}},` +
      `{"from":"${FRESH}","to":"${B}","value":"1000000000000000000","nonce":1}` +
      `],"blockNumber":${head},"overrides":{"accounts":{"${FRESH}":{"nonce":0,"balance":1}}}}`;
    const res = await post(raw);
    expect(res.status).toBe(200);
    const result = decodeGo(res.text);
    expect(result.ChainId).toBe(1);
    expect(result.BlockNumber).toBe(BigInt(head));
    expect(result.Calls).toHaveLength(4);
    expect(result.Calls.map((c) => c.Status)).toEqual([1, 0, 1, 1]);
    expect(result.Calls[0]!.AddressCreated).toBe(getCreateAddress({ from: A, nonce }));
    expect(result.Calls[1]!.Error).toEqual({ Type: 'revert', Message: 'nope' });
    expect(result.Calls[1]!.AddressCreated).toBeNull();
    expect(result.Calls[2]!.Error).toBeNull();
    expect(result.Calls[2]!.GasUsed).toBe(21_000n);
    // The balance override (5 ETH, a bare integer above 2^53) applied before call 2: two sends of 1 ETH pass.
    expect(res.body.calls[3].updated.accounts[getAddress(FRESH)]).toEqual({ nonce: 2, balance: `0x${(3n * 10n ** 18n).toString(16)}` });
  });

  it('Go SDK: internal transfers and logs decode, amounts and gas as big integers', async () => {
    // Code that sends 7 wei to B and logs LOG1(topic 0x01).
    const code = `0x600060006000600060077370997970c51812dc3a010c7d01b3e0d754a0c0a05af150600160006000a100`;
    const raw = `{"chainId":1,"calls":[{"from":"${A}","to":"${FRESH}"}],"overrides":{"accounts":{"${FRESH}":{"balance":100}},"contractCodes":{"${FRESH}":"${code}"}}}`;
    const res = await post(raw);
    expect(res.status).toBe(200);
    const [call] = decodeGo(res.text).Calls;
    expect(call!.InternalTransfers).toEqual([{ From: getAddress(FRESH), To: getAddress(B), Amount: 7n }]);
    expect(call!.Logs).toEqual([{ Address: getAddress(FRESH), Topics: [`0x${'0'.repeat(63)}1`], Data: '0x' }]);
    expect(call!.GasUsed! > 21_000n).toBe(true);
  });

  it('TS SDK: JSON.stringify of its Bundle; the answer has what its SimulationResult type says', async () => {
    const bundle = {
      chainId: 1,
      calls: [
        { from: FRESH, to: B, value: '1000', gasLimit: 21000, nonce: 0 },
        { from: A, to: REVERTER, data: '0x' },
        { from: FRESH, to: B, value: '2000', overrides: { accounts: { [FRESH]: { balance: '3000' } } } },
      ],
      overrides: { accounts: { [FRESH]: { balance: '1000' } }, storage: { [REVERTER]: { '0x01': `0x${'0'.repeat(63)}1` } } },
    };
    const res = await post(JSON.stringify(bundle));
    expect(res.status).toBe(200);
    const result = res.body;
    expect(typeof result.id).toBe('string');
    expect(typeof result.chainId).toBe('number');
    expect(typeof result.blockNumber).toBe('string');
    expect(typeof result.processTime).toBe('number');
    for (const call of result.calls) {
      expect(Array.isArray(call.logs)).toBe(true);
      expect(typeof call.gasUsed).toBe('string');
      expect(typeof call.result).toBe('string');
      expect(typeof call.status).toBe('number');
      expect(typeof call.updated).toBe('object');
      if (call.error !== undefined) expect(call.error).toEqual({ type: expect.any(String), message: expect.any(String) });
    }
    expect(result.calls.map((c: { status: number }) => c.status)).toEqual([1, 0, 1]);
    expect(result.calls[1].error).toEqual({ type: 'revert', message: 'nope' });
    // updated in the overrides' own shape: balances as strings, nonce a number.
    expect(result.calls[2].updated.accounts[getAddress(FRESH)]).toEqual({ nonce: 2, balance: '0x3e8' });
  });

  it('refuses what the SDKs could send that this service does not take, with a 400 that says so', async () => {
    // merkle-sdk-ts's Bundle may carry rpcUrl: simulating on a caller's RPC is not offered here.
    const res = await post(JSON.stringify({ chainId: 1, rpcUrl: 'http://127.0.0.1:1', calls: [{ from: A, to: B }] }));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: true, name: 'ValidationError' });
    expect(JSON.stringify(res.body.details)).toContain('rpcUrl');
  });
});

describe('fork rules on a chain with id 1 whose numbers do not follow mainnet’s (a fresh local node)', () => {
  let node: HardhatNode;
  let stack: Stack;
  let key: string;
  const simulate = (body: unknown) => stack.request('POST', '/v1/simulate', { key, body });

  beforeAll(async () => {
    node = await HardhatNode.start({ hardfork: 'osaka', blockGasLimit: 60_000_000 });
    stack = await Stack.start({ RPC_URL_1: node.url });
    key = await stack.createKey({ scopes: ['simulate'] });
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    await node?.stop();
  });

  it('runs today’s rules (Osaka): a call without gas gets 2^24, and more is refused as a node refuses it', async () => {
    const plain = await simulate({ chainId: 1, calls: [{ from: A, to: B, value: '1' }] });
    expect(plain.status).toBe(200);
    expect(plain.body.calls[0]).toMatchObject({ status: 1, gasUsed: '0x5208' });
    // INVALID burns all the gas it is given: the default is 2^24, not the block's 60M.
    const burn = await simulate({ chainId: 1, overrides: { contractCodes: { [FRESH]: '0xfe' } }, calls: [{ from: A, to: FRESH }] });
    expect(burn.body.calls[0]).toMatchObject({
      status: 0,
      gasUsed: `0x${(2 ** 24).toString(16)}`,
      error: { type: 'invalid_opcode', message: 'invalid opcode' },
    });
    expect((await simulate({ chainId: 1, calls: [{ from: A, to: B, gas: 2 ** 24 }] })).status).toBe(200);
    const over = await simulate({ chainId: 1, calls: [{ from: A, to: B, gas: 2 ** 24 + 1 }] });
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({
      name: 'ValidationError',
      details: [
        {
          path: 'calls.0.gas',
          message: expect.stringMatching(/^must be at most 16777216: a transaction may carry at most 2\^24 gas on (osaka|bpo\d) \(EIP-7825\)$/),
        },
      ],
    });
  });

  it('runs Osaka’s opcodes: CLZ answers', async () => {
    // PUSH1 0x01 CLZ PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN: 255 leading zero bits.
    const res = await simulate({ chainId: 1, overrides: { contractCodes: { [FRESH]: '0x60011e60005260206000f3' } }, calls: [{ from: A, to: FRESH }] });
    expect(res.body.calls[0]).toMatchObject({ status: 1, result: `0x${'0'.repeat(62)}ff` });
  });
});
