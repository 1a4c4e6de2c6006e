import { Logger } from '@nestjs/common';
import { ChainScheduler } from './chain-scheduler.js';

describe('ChainScheduler', () => {
  it('runs each chain on its own, wakes only the chain named, and stops them all', async () => {
    const scheduler = new ChainScheduler('test', 60_000, new Logger('test'));
    const runs: number[] = [];
    const waiters = new Map<number, () => void>();
    const ran = (chainId: number) => new Promise<void>((resolve) => waiters.set(chainId, resolve));
    for (const chainId of [1, 2]) {
      scheduler.add(chainId, () => {
        runs.push(chainId);
        waiters.get(chainId)?.();
        return Promise.resolve(false);
      });
    }
    expect(scheduler.chains()).toEqual([1, 2]);
    const first = Promise.all([ran(1), ran(2)]);
    scheduler.start();
    await first;
    expect(runs.sort()).toEqual([1, 2]);
    const again = ran(2);
    scheduler.wake(2);
    scheduler.wake(3); // not scheduled: ignored
    await again;
    expect(runs.filter((c) => c === 2)).toHaveLength(2);
    expect(runs.filter((c) => c === 1)).toHaveLength(1);
    await scheduler.stop();
  });
});
