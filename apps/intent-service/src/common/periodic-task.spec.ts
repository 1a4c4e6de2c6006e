import { PeriodicTask } from './periodic-task.js';

const quietLogger = { log: () => undefined, warn: () => undefined } as never;

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('PeriodicTask', () => {
  it('runs at start, again at once when woken mid-run, and never overlaps itself', async () => {
    let running = 0;
    let maxRunning = 0;
    let runs = 0;
    const gate = deferred();
    const second = deferred();
    const task = new PeriodicTask(
      't',
      60_000,
      async () => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        runs++;
        if (runs === 1) await gate.promise;
        if (runs === 2) second.resolve();
        running--;
        return false;
      },
      quietLogger,
    );
    task.start();
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setTimeout(r, 5));
    task.wake();
    task.wake();
    gate.resolve();
    await second.promise;
    await task.stop();
    expect(runs).toBe(2);
    expect(maxRunning).toBe(1);
  });

  it('keeps going after a failure', async () => {
    let runs = 0;
    const recovered = deferred();
    const task = new PeriodicTask(
      't',
      1,
      async () => {
        runs++;
        if (runs === 1) throw new Error('boom');
        recovered.resolve();
        return false;
      },
      quietLogger,
    );
    task.start();
    await recovered.promise;
    await task.stop();
    expect(runs).toBeGreaterThanOrEqual(2);
  });

  it('starts the next run at once while runs report a full batch', async () => {
    let runs = 0;
    const done = deferred();
    const task = new PeriodicTask(
      't',
      60_000,
      async () => {
        runs++;
        if (runs === 3) done.resolve();
        return runs < 3;
      },
      quietLogger,
    );
    task.start();
    await done.promise;
    await task.stop();
    expect(runs).toBe(3);
  });
});
