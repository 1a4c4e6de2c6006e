import type { INestMicroservice } from '@nestjs/common';
import { SIMULATION_SIMULATE, type SimulationResult } from '@tradeinfra/contracts';
import { TestNatsServer, TestRpcClient } from '@tradeinfra/test-support';
import { createSimulationService } from '../bootstrap.js';
import { loadEnv } from '../config/env.js';
import { FakeChain } from './fake-chain.js';

const USER = '0x00000000000000000000000000000000000000a1';
/** Returns storage slot 1. */
const READER = '0x00000000000000000000000000000000000000c1';
const READ_SLOT_1 = '0x60015460005260206000f3';
const word = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}`;

/**
 * A repeat of the same simulation at the same block is answered from the answers kept
 * (simulation/result-cache.ts) without reading the node, and only then: another block, other
 * overrides or other calls are simulated.
 */
describe('the same simulation at the same block, asked again', () => {
  let nats: TestNatsServer;
  let chain: FakeChain;
  let service: INestMicroservice;
  let client: TestRpcClient;

  const simulate = (body: Record<string, unknown>) => client.request<SimulationResult>(SIMULATION_SIMULATE, { body: { chainId: 1, ...body } }, 30_000);
  const read = { calls: [{ from: USER, to: READER }] };
  const slot1 = (result: SimulationResult) => BigInt(result.calls[0]!.result);

  beforeAll(async () => {
    nats = await TestNatsServer.start();
    chain = new FakeChain(100, 1_790_000_000, { [USER]: { balance: 10n ** 18n }, [READER]: { code: READ_SLOT_1, storage: { '1': 5n } } });
    await chain.start();
    service = await createSimulationService(loadEnv({ NATS_URL: nats.url, RPC_URL_1: chain.url, HARDFORK_1: 'prague', SIM_WORKERS: '1' }), false);
    client = await TestRpcClient.connect(nats.url);
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    await service?.close();
    await chain?.stop();
    await nats?.dispose();
  });

  it('answers the same, under a new id, without reading the node; another block answers from its own state', async () => {
    const first = await simulate({ blockNumber: 100, ...read });
    chain.reset();
    const again = await simulate({ blockNumber: 100, ...read });
    expect(chain.roundTrips).toBe(0);
    expect(again.id).not.toBe(first.id);
    expect({ ...again, id: null, processTime: 0 }).toEqual({ ...first, id: null, processTime: 0 });
    expect(slot1(again)).toBe(5n);

    const next = chain.mine({ [READER]: { storage: { '1': 6n } } });
    expect(slot1(await simulate({ blockNumber: next, ...read }))).toBe(6n);
    expect(slot1(await simulate({ blockNumber: 100, ...read }))).toBe(5n);
  });

  it('simulates again when the overrides or the calls differ', async () => {
    await simulate({ blockNumber: 100, ...read });
    const overridden = await simulate({ blockNumber: 100, ...read, overrides: { storage: { [READER]: { '0x1': word(9n) } } } });
    expect(slot1(overridden)).toBe(9n);
    const perCall = await simulate({ blockNumber: 100, calls: [{ ...read.calls[0], overrides: { storage: { [READER]: { '0x1': word(10n) } } } }] });
    expect(slot1(perCall)).toBe(10n);
    const twice = await simulate({ blockNumber: 100, calls: [read.calls[0], read.calls[0]] });
    expect(twice.calls.map((c) => BigInt(c.result))).toEqual([5n, 5n]);
  });

  it('answers a block named after a `latest` simulation resolved to it from that simulation', async () => {
    const head = chain.mine({ [READER]: { storage: { '1': 7n } } });
    const latest = await simulate(read);
    expect(BigInt(latest.blockNumber)).toBe(BigInt(head));
    chain.reset();
    const named = await simulate({ blockNumber: head, ...read });
    expect(chain.roundTrips).toBe(0);
    expect(slot1(named)).toBe(7n);
  });
});
