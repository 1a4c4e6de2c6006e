import { Logger } from '@nestjs/common';

/**
 * Runs `work` every `intervalMs`, never overlapping itself. `wake()` runs it again as soon as
 * the current run ends; when a run reports it did a full batch (`true`), the next one starts
 * at once. Errors are logged and retried on the next tick.
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = true;
  private failures = 0;

  constructor(
    private readonly name: string,
    private readonly intervalMs: number,
    private readonly work: () => Promise<boolean>,
    private readonly logger = new Logger(name),
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
    } else {
      this.schedule(0);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), delayMs);
    this.timer.unref?.();
  }

  private async tick(): Promise<void> {
    this.timer = null;
    if (this.running || this.stopped) return;
    this.again = false;
    let more = false;
    this.running = (async () => {
      try {
        more = await this.work();
        if (this.failures > 0) this.logger.log(`${this.name} recovered after ${this.failures} failed run(s)`);
        this.failures = 0;
      } catch (err) {
        this.failures++;
        if (this.failures === 1 || this.failures % 20 === 0) {
          this.logger.warn(`${this.name} failed (${this.failures}x), retrying: ${(err as Error).message}`);
        }
      }
    })();
    await this.running;
    this.running = null;
    const backoff = Math.min(this.intervalMs * 2 ** Math.min(this.failures, 4), 5_000);
    this.schedule(this.failures > 0 ? backoff : more || this.again ? 0 : this.intervalMs);
  }
}
