import type { INestMicroservice } from '@nestjs/common';
import { SIMULATION_SIMULATE, type RpcErrorPayload, type SimulationResult } from '@tradeinfra/contracts';
import { eventually, TestNatsServer, TestRpcClient } from '@tradeinfra/test-support';
import { createSimulationService } from '../bootstrap.js';
import { loadEnv } from '../config/env.js';
import { FakeChain } from './fake-chain.js';

const USER = '0x00000000000000000000000000000000000000a1';
/** Returns storage slot 1. */
const READER = '0x00000000000000000000000000000000000000c1';
/** 1000 JUMPDESTs then PUSH0 JUMP back to 0: about 1 gas per instruction, endless within the block's 10^12 gas. */
const LOOPER = '0x00000000000000000000000000000000000000c2';
/** Reads storage slots 0..599, one SLOAD each. */
const SCANNER = '0x00000000000000000000000000000000000000c3';
/** Reads storage slots 0..39. */
const SMALL_SCANNER = '0x00000000000000000000000000000000000000c4';
/** Returns 1.5 MiB of zeros (3 MiB of hex in the answer). */
const BIG_RETURN = '0x00000000000000000000000000000000000000c5';

const READ_SLOT_1 = '0x60015460005260206000f3';
const ENDLESS = `0x${'5b'.repeat(1000)}5f56`;
/** i = n; do { i--; SLOAD(i) } while (i != 0) */
const scan = (n: number) => `0x61${n.toString(16).padStart(4, '0')}5b600190038054508060035700`;
const RETURN_1_5_MIB = `0x62${(1.5 * 1024 * 1024).toString(16).padStart(6, '0')}6000f3`;

const SIM_TIMEOUT_MS = 3_000;
const BUDGET = 300;

/**
 * The simulation service over real NATS (its own nats-server, max_payload 1 MiB), its EVM in
 * worker threads, reading a scripted JSON-RPC node. The bounds in time are the ones issue 10
 * demands (a normal simulation within 1 s while an endless loop runs; a timeout answered within
 * SIM_TIMEOUT_MS and a small margin), with room for a loaded 2-core machine.
 */
describe('simulations isolated from one another', () => {
  let nats: TestNatsServer;
  let chain: FakeChain;
  let service: INestMicroservice;
  let client: TestRpcClient;

  const simulate = (body: Record<string, unknown>, timeoutMs = 30_000) =>
    client.request<SimulationResult>(SIMULATION_SIMULATE, { body: { chainId: 1, blockNumber: 100, ...body } }, timeoutMs);
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        throw new Error('expected the simulation to fail');
      },
      (err: RpcErrorPayload) => err,
    );
  const normal = { calls: [{ from: USER, to: READER }] };
  const endless = { calls: [{ from: USER, to: LOOPER }] };

  beforeAll(async () => {
    nats = await TestNatsServer.start();
    chain = new FakeChain(100, 1_790_000_000, {
      [USER]: { balance: 10n ** 18n },
      [READER]: { code: READ_SLOT_1, storage: { '1': 5n } },
      [LOOPER]: { code: ENDLESS },
      [SCANNER]: { code: scan(600) },
      [SMALL_SCANNER]: { code: scan(40) },
      [BIG_RETURN]: { code: RETURN_1_5_MIB },
    });
    chain.gasLimit = 1_000_000_000_000;
    await chain.start();
    service = await createSimulationService(
      loadEnv({
        NATS_URL: nats.url,
        RPC_URL_1: chain.url,
        // Prague: no per-transaction gas cap (EIP-7825), so a call gets the block's 10^12 gas.
        HARDFORK_1: 'prague',
        SIM_TIMEOUT_MS: String(SIM_TIMEOUT_MS),
        SIM_WORKERS: '2',
        SIM_MAX_UPSTREAM_READS: String(BUDGET),
      }),
      false,
    );
    client = await TestRpcClient.connect(nats.url);
    // Warm: both workers have read every account used below (the loop then starts at once).
    await Promise.all([simulate(normal), simulate(normal), simulate({ calls: [{ from: USER, to: LOOPER, gas: 100_000 }] })]);
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    await service?.close();
    await chain?.stop();
    await nats?.dispose();
  });

  it('answers a normal simulation within 1 s while an endless loop runs, and the loop with 504 simulation_timeout within SIM_TIMEOUT_MS', async () => {
    const loopSent = performance.now();
    const loop = failure(simulate(endless));
    // The scenario: the normal simulation is sent while the loop is running on a worker.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const sent = performance.now();
    const answer = await simulate(normal);
    const tookMs = performance.now() - sent;
    expect(answer.calls[0]!.result).toBe(`0x${'5'.padStart(64, '0')}`);
    expect(tookMs).toBeLessThan(1_000);

    const error = await loop;
    const loopMs = performance.now() - loopSent;
    expect(error).toMatchObject({ name: 'Timeout', details: { reason: 'simulation_timeout', timeoutMs: SIM_TIMEOUT_MS } });
    expect(error.message).toContain(`${SIM_TIMEOUT_MS} ms`);
    expect(loopMs).toBeGreaterThanOrEqual(SIM_TIMEOUT_MS - 50);
    expect(loopMs).toBeLessThan(SIM_TIMEOUT_MS + 1_500);
  }, 60_000);

  it('keeps serving after simulations that time out, as many at once as there are workers and more', async () => {
    const loops = await Promise.all([1, 2, 3].map(() => failure(simulate(endless))));
    for (const error of loops) expect(error).toMatchObject({ name: 'Timeout', details: { reason: 'simulation_timeout' } });
    const answer = await simulate(normal);
    expect(answer.calls[0]!.status).toBe(1);
  }, 60_000);

  it('refuses with 422 upstream_budget_exceeded a simulation that would read more than SIM_MAX_UPSTREAM_READS, without sending those reads', async () => {
    chain.reset();
    const error = await failure(simulate({ calls: [{ from: USER, to: SCANNER }] }));
    expect(error).toMatchObject({ name: 'Unprocessable', details: { reason: 'upstream_budget_exceeded', limit: BUDGET } });
    expect(error.message).toContain(`more than ${BUDGET} reads`);
    const calls = chain.batches.flat().length;
    expect(calls).toBeLessThanOrEqual(BUDGET);
    // A contract reading 40 slots stays within the budget.
    const small = await simulate({ calls: [{ from: USER, to: SMALL_SCANNER }] });
    expect(small.calls[0]!.status).toBe(1);
  }, 60_000);

  it('answers 422 result_too_large, naming the size and the limit, for a result NATS cannot carry', async () => {
    const error = await failure(simulate({ calls: [{ from: USER, to: BIG_RETURN }] }));
    expect(error).toMatchObject({ name: 'Unprocessable', details: { reason: 'result_too_large' } });
    const details = error.details as { size: number; limit: number };
    expect(details.size).toBeGreaterThan(3 * 1024 * 1024);
    expect(details.limit).toBeLessThan(1024 * 1024);
    expect(error.message).toContain(`${details.size} bytes`);
  }, 60_000);

  it('terminates and replaces a worker that does not stop by itself (one precompile call of a minute never checks the clock)', async () => {
    // MODEXP (0x05) of a 4096-byte base and modulus by a 4096-byte exponent of 0xff…: about 3·10^9 gas
    // (Prague prices, no EIP-7823 size cap), one synchronous computation of over a minute
    // (64 times the 1.3 s that 512 bits of exponent take with JavaScript bigints).
    const len = (n: number) => n.toString(16).padStart(64, '0');
    const size = 4096;
    const data = `0x${len(size)}${len(size)}${len(size)}${'07'.repeat(size)}${'ff'.repeat(size)}${'0b'.repeat(size)}`;
    const modexp = { calls: [{ from: USER, to: '0x0000000000000000000000000000000000000005', data }] };
    // Both workers stuck: only a termination frees them.
    const stuck = await Promise.all([failure(simulate(modexp)), failure(simulate(modexp))]);
    for (const error of stuck) expect(error).toMatchObject({ name: 'Timeout', details: { reason: 'simulation_timeout' } });
    // Terminated SIM_KILL_GRACE_MS (1 s) after the deadline and replaced: once a fresh thread has
    // loaded the EVM (seconds on a busy machine) simulations are answered again, long before the
    // minute and more the computation would have held both workers.
    const freed = performance.now();
    const answer = await eventually('a worker to serve again', () => simulate(normal), 30_000, 100);
    expect(answer.calls[0]!.status).toBe(1);
    expect(performance.now() - freed).toBeLessThan(30_000);
  }, 90_000);
});
