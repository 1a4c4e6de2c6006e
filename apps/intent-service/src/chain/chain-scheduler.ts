import { type Logger } from '@nestjs/common';
import { PeriodicTask } from '../common/periodic-task.js';

/**
 * One PeriodicTask per chain: each chain's step runs every `intervalMs`, at once when woken, and
 * again at once while it answers true (more work waits). Chains never wait on each other.
 */
export class ChainScheduler {
  private readonly tasks = new Map<number, PeriodicTask>();

  constructor(
    private readonly name: string,
    private readonly intervalMs: number,
    private readonly logger: Logger,
  ) {}

  /** Schedules `step` for the chain (call before start). */
  add(chainId: number, step: () => Promise<boolean>): void {
    this.tasks.set(chainId, new PeriodicTask(`${this.name} (chain ${chainId})`, this.intervalMs, step, this.logger));
  }

  chains(): number[] {
    return [...this.tasks.keys()];
  }

  start(): void {
    for (const task of this.tasks.values()) task.start();
  }

  /** Act on the chain now rather than at the next tick; a chain not scheduled is ignored. */
  wake(chainId: number): void {
    this.tasks.get(chainId)?.wake();
  }

  async stop(): Promise<void> {
    await Promise.all([...this.tasks.values()].map((t) => t.stop()));
  }
}
