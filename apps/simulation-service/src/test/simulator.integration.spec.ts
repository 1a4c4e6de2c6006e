import { parseInput, SimulateRequestSchema } from '@tradeinfra/contracts';
import { ChainState, createStateCache } from '../chain/chain-state.js';
import { mappingSlot } from '../engine/bundle-plan.js';
import { simulateBundle, type SimulationStats } from '../engine/simulator.js';
import { FakeChain } from './fake-chain.js';

const USER = '0x00000000000000000000000000000000000000a1';
const OTHER = '0x00000000000000000000000000000000000000a2';
/** Returns storage slot 1. */
const READER = '0x00000000000000000000000000000000000000c1';
/** Returns the sum of storage slots 1 and 2. */
const SUMMER = '0x00000000000000000000000000000000000000c2';
/** Writes 7 to slot 9. */
const WRITER = '0x00000000000000000000000000000000000000c3';

/** Returns what the address in its first calldata word answers (a STATICCALL): one level of indirection, like a router. */
const PROXY = '0x00000000000000000000000000000000000000c5';
const PROXY_CODE = '0x6020600060006000600435' + '5afa5060206000f3';
/** Two contracts with the same code (READ_SLOT_1) and different slot 1: two tokens launched alike. */
const TOKEN_A = '0x5555555555555555555555555555555555555555';
const TOKEN_B = '0x6666666666666666666666666666666666666666';

/** `balanceOf(holder)`: the holder's entry of the mapping at slot 0 (keccak256(holder ‖ 0)), as Solidity places it. */
const BALANCES = '0x00000000000000000000000000000000000000c6';
const BALANCE_OF = '0x6004356000526000602052604060002054' + '60005260206000f3';
/** `allowance(owner, spender)`: the nested mapping at slot 1 (keccak256(spender ‖ keccak256(owner ‖ 1))). */
const ALLOWANCES = '0x00000000000000000000000000000000000000c7';
const ALLOWANCE_OF = '0x6004356000526001602052604060002060205260243560005260406000205460005260206000f3';
const HOLDER_A = '0x7777777777777777777777777777777777777777';
const HOLDER_B = '0x8888888888888888888888888888888888888888';
const SPENDER_A = '0x9999999999999999999999999999999999999999';
const SPENDER_B = '0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
/** The decimal slot of `address`'s entry in the mapping at `base` (a decimal slot too). */
const entry = (address: string, base: string) => BigInt(mappingSlot(address, word(BigInt(base)))).toString();

/** Reverts unless slot 12 (a lock) is set, then returns slot 2. */
const GATED = '0x00000000000000000000000000000000000000c4';

const READ_SLOT_1 = '0x60015460005260206000f3';
/** The same behind a JUMP (so the code's jump analysis, cached per code object and rules, is used). */
const READ_SLOT_1_AFTER_A_JUMP = '0x600456005b60015460005260206000f3';
const SUM_SLOTS_1_2 = '0x600254600154016000526020' + '6000f3';
const WRITE_7_TO_9 = '0x6007600955' + '00';
const LOCKED_READ_SLOT_2 = '0x600c54600a57600080fd5b' + '60025460005260206000f3';

const word = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}`;

function request(body: Record<string, unknown>) {
  return parseInput(SimulateRequestSchema, { chainId: 1, ...body });
}

describe('simulating on a chain read over JSON-RPC', () => {
  let chain: FakeChain;
  let state: ChainState;
  const run = async (body: Record<string, unknown>, chainState = state) => {
    const stats: SimulationStats = { rounds: 0, fetches: 0, callRuns: 0, rules: '' };
    chain.reset();
    const result = await simulateBundle(chainState, request(body), { deadline: performance.now() + 10_000, maxCallGas: 0 }, stats);
    return { result, stats, roundTrips: chain.roundTrips };
  };

  beforeEach(async () => {
    chain = new FakeChain(100, 1_790_000_000, {
      [USER]: { balance: 10n ** 18n },
      [READER]: { code: READ_SLOT_1, storage: { '1': 5n } },
      [SUMMER]: { code: SUM_SLOTS_1_2, storage: { '1': 1n, '2': 2n } },
      [WRITER]: { code: WRITE_7_TO_9 },
      [GATED]: { code: LOCKED_READ_SLOT_2, storage: { '12': 1n, '2': 5n } },
      [PROXY]: { code: PROXY_CODE },
      [TOKEN_A]: { code: READ_SLOT_1, storage: { '1': 11n } },
      [TOKEN_B]: { code: READ_SLOT_1, storage: { '1': 22n } },
      [BALANCES]: { code: BALANCE_OF, storage: { [entry(HOLDER_A, '0')]: 11n, [entry(HOLDER_B, '0')]: 22n } },
      [ALLOWANCES]: {
        code: ALLOWANCE_OF,
        storage: { [entry(SPENDER_A, entry(HOLDER_A, '1'))]: 33n, [entry(SPENDER_B, entry(HOLDER_B, '1'))]: 44n },
      },
    });
    await chain.start();
    state = new ChainState({ chainId: 1, rpcUrls: [chain.url], hardfork: null }, createStateCache(16 << 20), 2_000, 200);
  });
  afterEach(() => chain.stop());

  it('answers a warm bundle without asking the upstream', async () => {
    const body = { blockNumber: 100, calls: [{ from: USER, to: READER }] };
    const first = await run(body);
    expect(first.result.calls[0]!.result).toBe(word(5n));
    const again = await run(body);
    expect(again.roundTrips).toBe(0);
    expect(again.stats.rounds).toBe(1);
    expect(again.result.calls).toEqual(first.result.calls);
  });

  it('runs a known shape on a new block in one round trip when the block is named', async () => {
    await run({ blockNumber: 100, calls: [{ from: USER, to: SUMMER }] });
    const block = chain.mine();
    const next = await run({ blockNumber: block, calls: [{ from: USER, to: SUMMER }] });
    expect(next.result.calls[0]!.result).toBe(word(3n));
    expect(next.roundTrips).toBe(1);
  });

  it("runs a known shape naming another address once: that address gets the keys the last one's were read at", async () => {
    const through = (token: string) => ({ blockNumber: 100, calls: [{ from: USER, to: PROXY, data: `0x12345678${token.slice(2).padStart(64, '0')}` }] });
    const cold = await run(through(TOKEN_A));
    expect(cold.result.calls[0]!.result).toBe(word(11n));
    expect(cold.stats).toMatchObject({ rounds: 2, fetches: 1 });
    // TOKEN_B in TOKEN_A's place: its slot 1 comes with the prefetch, and the one run is exact.
    const next = await run(through(TOKEN_B));
    expect(next.result.calls[0]!.result).toBe(word(22n));
    expect(next.stats).toMatchObject({ rounds: 1, fetches: 0 });
    expect(next.roundTrips).toBe(1);
  });

  it("runs a known shape naming another holder once: the new holder's entry of a mapping comes with the prefetch", async () => {
    const balanceOf = (holder: string) => ({ blockNumber: 100, calls: [{ from: USER, to: BALANCES, data: `0x70a08231${holder.slice(2).padStart(64, '0')}` }] });
    const cold = await run(balanceOf(HOLDER_A));
    expect(cold.result.calls[0]!.result).toBe(word(11n));
    // The slot is hashed from the holder: it is found from the hash the last run made, with HOLDER_B in HOLDER_A's place.
    const next = await run(balanceOf(HOLDER_B));
    expect(next.result.calls[0]!.result).toBe(word(22n));
    expect(next.stats).toMatchObject({ rounds: 1, fetches: 0 });
    expect(next.roundTrips).toBe(1);
  });

  it("runs a known shape once when both keys of a nested mapping's entry (an allowance) are other addresses", async () => {
    const allowance = (owner: string, spender: string) => ({
      blockNumber: 100,
      calls: [{ from: USER, to: ALLOWANCES, data: `0xdd62ed3e${owner.slice(2).padStart(64, '0')}${spender.slice(2).padStart(64, '0')}` }],
    });
    expect((await run(allowance(HOLDER_A, SPENDER_A))).result.calls[0]!.result).toBe(word(33n));
    const next = await run(allowance(HOLDER_B, SPENDER_B));
    expect(next.result.calls[0]!.result).toBe(word(44n));
    expect(next.stats).toMatchObject({ rounds: 1, fetches: 0 });
  });

  it("runs a bundle calling a contract never named before once when the last bundle called another alike (a new pair's reserves)", async () => {
    expect((await run({ blockNumber: 100, calls: [{ from: USER, to: TOKEN_A }] })).result.calls[0]!.result).toBe(word(11n));
    // Another target is another shape, never seen: the last bundle of the same calls on any target gives its keys.
    const next = await run({ blockNumber: 100, calls: [{ from: USER, to: TOKEN_B }] });
    expect(next.result.calls[0]!.result).toBe(word(22n));
    expect(next.stats).toMatchObject({ rounds: 1, fetches: 0 });
    expect(next.roundTrips).toBe(1);
  });

  it('assumes what it knew from an older block, fetches what it read in one batch, and stands by a run whose assumptions held', async () => {
    await run({ calls: [{ from: USER, to: SUMMER }] });
    chain.mine();
    // latest: the header, then one batch with every key the run read; nothing changed, so no second run.
    const next = await run({ calls: [{ from: OTHER, to: SUMMER }] });
    expect(next.result.calls[0]!.result).toBe(word(3n));
    expect(next.roundTrips).toBe(2);
    expect(next.stats).toMatchObject({ rounds: 1, fetches: 1, callRuns: 1 });
  });

  it('runs again only from the first call whose assumption was wrong', async () => {
    await run({
      calls: [
        { from: USER, to: READER },
        { from: USER, to: SUMMER },
      ],
    });
    // Slot 2 of SUMMER changes: call 0 (READER) assumed right, call 1 did not.
    chain.mine({ [SUMMER]: { storage: { '2': 40n } } });
    const next = await run({
      calls: [
        { from: USER, to: READER },
        { from: USER, to: SUMMER },
      ],
    });
    expect(next.result.calls.map((c) => c.result)).toEqual([word(5n), word(41n)]);
    expect(next.stats).toMatchObject({ rounds: 2, fetches: 1, callRuns: 3 });
    expect(next.roundTrips).toBe(2);
  });

  it('fetches the fixed slots of the code it reached with its misses, so a run that turned back early does not cost a round trip per slot', async () => {
    // Never seen: the first run assumes the lock (slot 12) is 0 and reverts before reading slot
    // 2; slot 2 comes in the same batch as slot 12 because the code reads it at a fixed slot.
    const { result, stats, roundTrips } = await run({ blockNumber: 100, calls: [{ from: USER, to: GATED }] });
    expect(result.calls[0]).toMatchObject({ status: 1, result: word(5n) });
    expect(stats).toMatchObject({ rounds: 2, fetches: 1 });
    expect(roundTrips).toBe(2);
  });

  describe("the first call's result as soon as it is final (onFirstCall)", () => {
    /** Runs `body` telling the first call: what was told, in order with the answer. */
    const told = async (body: Record<string, unknown>) => {
      const events: unknown[] = [];
      chain.reset();
      const result = await simulateBundle(state, request(body), {
        deadline: performance.now() + 10_000,
        maxCallGas: 0,
        onFirstCall: (call, block) => events.push({ call, block }),
      });
      events.push('answered');
      return { events, result };
    };
    const twoCalls = {
      calls: [
        { from: USER, to: READER },
        { from: USER, to: SUMMER },
      ],
    };

    it('tells it once, before the answer, as the answer has it: warm, cold, and with a later call that assumed wrong', async () => {
      for (const body of [twoCalls, twoCalls]) {
        const { events, result } = await told(body);
        expect(events).toEqual([{ call: result.calls[0], block: 100n }, 'answered']);
      }
      chain.mine({ [SUMMER]: { storage: { '2': 40n } } });
      const { events, result } = await told(twoCalls);
      expect(result.calls.map((c) => c.result)).toEqual([word(5n), word(41n)]);
      expect(events).toEqual([{ call: result.calls[0], block: 101n }, 'answered']);
    });

    it('never tells what the first call made of a value it assumed wrong: only its run on the real one', async () => {
      await told(twoCalls);
      chain.mine({ [READER]: { storage: { '1': 50n } } });
      const { events, result } = await told(twoCalls);
      expect(result.calls[0]!.result).toBe(word(50n));
      expect(events).toEqual([{ call: result.calls[0], block: 101n }, 'answered']);
    });

    it('tells nothing when the first call is refused', async () => {
      const events: unknown[] = [];
      const refused = simulateBundle(
        state,
        request({
          blockNumber: 100,
          calls: [
            { from: OTHER, to: READER, value: '0x1' },
            { from: USER, to: READER },
          ],
        }),
        {
          deadline: performance.now() + 10_000,
          maxCallGas: 0,
          onFirstCall: (call) => events.push(call),
        },
      );
      await expect(refused).rejects.toThrow(/fund|balance/i);
      expect(events).toEqual([]);
    });
  });

  it('reports what a call changed, against the state before it (overrides and earlier calls included)', async () => {
    const { result } = await run({
      blockNumber: 100,
      calls: [
        { from: USER, to: WRITER },
        { from: USER, to: WRITER, overrides: { storage: { [WRITER]: { '0x9': '0x1' } } } },
        { from: USER, to: WRITER },
      ],
    });
    const slot9 = word(9n);
    expect(result.calls[0]!.updated.storage).toEqual({ '0x00000000000000000000000000000000000000C3': { [slot9]: word(7n) } });
    // Its own override set 1: writing 7 is a change again.
    expect(result.calls[1]!.updated.storage).toEqual({ '0x00000000000000000000000000000000000000C3': { [slot9]: word(7n) } });
    // 7 over 7: no change.
    expect(result.calls[2]!.updated.storage).toBeUndefined();
    expect(result.calls.map((c) => c.updated.accounts)).toEqual([1, 2, 3].map((nonce) => ({ '0x00000000000000000000000000000000000000A1': { nonce } })));
  });
});

describe('Polygon (137) since Chicago: PIP-88 cold storage prices', () => {
  it('charges 5460 for a cold SLOAD and 2940 + 20000 for a cold SSTORE that sets a slot', async () => {
    const chain = new FakeChain(87_218_599, 1_779_000_000, {
      [USER]: { balance: 10n ** 18n },
      [READER]: { code: READ_SLOT_1_AFTER_A_JUMP, storage: { '1': 5n } },
      [WRITER]: { code: WRITE_7_TO_9 },
      [GATED]: { code: LOCKED_READ_SLOT_2, storage: { '12': 1n, '2': 5n } },
    });
    chain.mine(); // 87,218,600: Chicago
    await chain.start();
    try {
      const state = new ChainState({ chainId: 137, rpcUrls: [chain.url], hardfork: null }, createStateCache(16 << 20), 2_000, 200);
      const gas = async (block: number, to: string) => {
        const body = parseInput(SimulateRequestSchema, { chainId: 137, blockNumber: block, calls: [{ from: USER, to }] });
        const stats: SimulationStats = { rounds: 0, fetches: 0, callRuns: 0, rules: '' };
        const result = await simulateBundle(state, body, { deadline: performance.now() + 10_000, maxCallGas: 0 }, stats);
        return { gas: BigInt(result.calls[0]!.gasUsed), rules: stats.rules };
      };
      const before = await gas(87_218_599, READER);
      const after = await gas(87_218_600, READER);
      expect([before.rules, after.rules]).toEqual(['polygon lisovo', 'polygon chicago']);
      expect(after.gas - before.gas).toBe(5460n - 2100n);
      const writeBefore = await gas(87_218_599, WRITER);
      const writeAfter = await gas(87_218_600, WRITER);
      expect(writeAfter.gas - writeBefore.gas).toBe(2940n - 2100n);
      // A transaction may carry 2^25 gas there.
      const big = parseInput(SimulateRequestSchema, { chainId: 137, blockNumber: 87_218_600, calls: [{ from: USER, to: READER, gas: 2 ** 25 }] });
      await expect(simulateBundle(state, big, { deadline: performance.now() + 10_000, maxCallGas: 0 })).resolves.toBeDefined();
      const over = parseInput(SimulateRequestSchema, { chainId: 137, blockNumber: 87_218_600, calls: [{ from: USER, to: READER, gas: 2 ** 25 + 1 }] });
      await expect(simulateBundle(state, over, { deadline: performance.now() + 10_000, maxCallGas: 0 })).rejects.toMatchObject({
        message: 'calls.0.gas: must be at most 33554432: a transaction may carry at most 33554432 gas on polygon chicago',
      });
    } finally {
      await chain.stop();
    }
  });
});
