import type { INestMicroservice } from '@nestjs/common';
import { connect } from '@nats-io/transport-node';
import { SIMULATION_SIMULATE_STREAM, type SimulatedCall, type SimulationResult, type SimulationStreamed } from '@tradeinfra/contracts';
import { NatsRequestFailed, natsRequestStream, NatsConnections, NatsSimulationClient, plainNatsEnv } from '@tradeinfra/service-kit';
import { TestNatsServer } from '@tradeinfra/test-support';
import { createSimulationService } from '../bootstrap.js';
import { loadEnv } from '../config/env.js';
import { FakeChain } from './fake-chain.js';

const USER = '0x00000000000000000000000000000000000000a1';
/** Returns storage slot 1. */
const READER = '0x00000000000000000000000000000000000000c1';
/** Counts down from 100,000: a call that runs for a while (the first call's message is well ahead of the answer). */
const SPINNER = '0x00000000000000000000000000000000000000c2';
const READ_SLOT_1 = '0x60015460005260206000f3';
const SPIN = '0x620186a05b6001900380600457' + '00';

/**
 * `simulation.simulate.stream` over real NATS, with the EVM in worker threads reading a scripted
 * node: the first call's result comes while the later calls still run, then the whole result.
 */
describe('the first call of a simulation, streamed ahead of the answer', () => {
  let nats: TestNatsServer;
  let chain: FakeChain;
  let service: INestMicroservice;
  let client: NatsSimulationClient;

  beforeAll(async () => {
    nats = await TestNatsServer.start();
    chain = new FakeChain(100, 1_790_000_000, {
      [USER]: { balance: 10n ** 18n },
      [READER]: { code: READ_SLOT_1, storage: { '1': 5n } },
      [SPINNER]: { code: SPIN },
    });
    await chain.start();
    service = await createSimulationService(loadEnv({ NATS_URL: nats.url, RPC_URL_1: chain.url, HARDFORK_1: 'prague', SIM_WORKERS: '1' }), false);
    client = new NatsSimulationClient(new NatsConnections(plainNatsEnv(nats.url), 'stream-test'));
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    await service?.close();
    await chain?.stop();
    await nats?.dispose();
  });

  /** Simulates `calls`, recording the first call as told and the answer, in order. */
  async function streamed(calls: { from: string; to: string; data: string }[], chainId = 1) {
    const events: ({ first: SimulatedCall; block: string } | 'answered')[] = [];
    const result = await client.simulateStream({ chainId, blockNumber: '100', calls }, (first, block) => events.push({ first, block }), 30_000);
    events.push('answered');
    return { events, result };
  }

  it('tells the first call once, then answers with the same first call; cold (the first call read nothing known yet) and warm', async () => {
    for (let i = 0; i < 2; i++) {
      const { events, result } = await streamed([
        { from: USER, to: READER, data: '0x' },
        { from: USER, to: SPINNER, data: '0x' },
      ]);
      expect(result.calls.map((c) => c.status)).toEqual([1, 1]);
      expect(result.calls[0]!.result).toBe(`0x${'5'.padStart(64, '0')}`);
      expect(events).toEqual([{ first: result.calls[0], block: '0x64' }, 'answered']);
    }
  });

  it('sends the first call in a message of its own, ahead of the answer, where its reads are known', async () => {
    const calls = [
      { from: USER, to: READER, data: '0x' },
      { from: USER, to: SPINNER, data: '0x' },
    ];
    await streamed(calls); // warm: the first call then reads nothing it must wait for
    const nc = await connect({ servers: nats.url });
    try {
      const values: SimulationStreamed[] = [];
      await natsRequestStream<SimulationStreamed>(
        nc,
        SIMULATION_SIMULATE_STREAM,
        { body: { chainId: 1, blockNumber: '100', calls } },
        { timeoutMs: 30_000 },
        (value) => {
          values.push(value);
          return 'result' in value;
        },
      );
      expect(values.map((v) => Object.keys(v).sort())).toEqual([['blockNumber', 'first'], ['result']]);
      expect((values[0] as { first: SimulatedCall }).first).toEqual((values[1] as { result: SimulationResult }).result.calls[0]);
    } finally {
      await nc.close();
    }
  });

  it('answers as simulation.simulate does', async () => {
    const calls = [
      { from: USER, to: READER, data: '0x' },
      { from: USER, to: READER, data: '0x' },
    ];
    const { result } = await streamed(calls);
    const plain = await client.simulate({ chainId: 1, blockNumber: '100', calls }, 30_000);
    expect({ ...result, id: null, processTime: 0 }).toEqual({ ...plain, id: null, processTime: 0 });
  });

  it('fails as simulation.simulate does, telling nothing', async () => {
    const told: unknown[] = [];
    const failed = client.simulateStream(
      { chainId: 999, blockNumber: '100', calls: [{ from: USER, to: READER, data: '0x' }] },
      (first) => told.push(first),
      30_000,
    );
    await expect(failed).rejects.toThrow(/^simulation: .*999/);
    expect(told).toEqual([]);
  });

  it('fails at once when no simulation service listens', async () => {
    const empty = await TestNatsServer.start();
    const alone = new NatsSimulationClient(new NatsConnections(plainNatsEnv(empty.url), 'stream-test-alone'));
    try {
      const failed = alone.simulateStream({ chainId: 1, calls: [{ from: USER, to: READER, data: '0x' }] }, () => undefined, 60_000);
      await expect(failed).rejects.toBeInstanceOf(NatsRequestFailed);
      await expect(failed).rejects.toMatchObject({ kind: 'no_responders' });
    } finally {
      await alone.close();
      await empty.dispose();
    }
  });
});
