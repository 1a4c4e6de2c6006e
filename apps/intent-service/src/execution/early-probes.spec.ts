import { EarlyProbes } from './early-probes.js';

const PROBE = { buyTax: 0n, sellTax: 0n, buyGas: 100_000n };

describe('EarlyProbes', () => {
  it('gives a pending launch’s probe to its round once, at the head the launch was simulated on', async () => {
    const probes = new EarlyProbes(() => 0);
    probes.put(1, '0xAbC', '0xTX', 100n, Promise.resolve(PROBE));
    expect(await probes.take(1, '0xabc', '0xtx', 101n)).toBeNull(); // another head: the round probes itself
    expect(await probes.take(1, '0xabc', '0xtx', 100n)).toEqual(PROBE);
    expect(await probes.take(1, '0xabc', '0xtx', 100n)).toBeNull();
  });

  it('gives null for a probe that failed (the round probes again)', async () => {
    const probes = new EarlyProbes(() => 0);
    probes.put(1, '0xabc', '0xtx', 100n, Promise.reject(new Error('simulation service down')));
    expect(await probes.take(1, '0xabc', '0xtx', 100n)).toBeNull();
  });

  it('forgets probes whose round never came once their time is up', async () => {
    let now = 0;
    const probes = new EarlyProbes(() => now, 60_000);
    probes.put(1, '0xold', '0xtx', 100n, Promise.resolve(PROBE));
    now = 60_001;
    probes.put(1, '0xnew', '0xtx', 101n, Promise.resolve(PROBE));
    expect(await probes.take(1, '0xold', '0xtx', 100n)).toBeNull();
    expect(await probes.take(1, '0xnew', '0xtx', 101n)).toEqual(PROBE);
  });
});
