import type { IntentRecord } from '@tradeinfra/contracts';
import { infrastructureFailure } from '@tradeinfra/service-kit';
import type { GroupedCreate, IdempotencyClaim, IntentsRepository, NewIntent } from './intents.repository.js';

/** Statements of grouped creates in flight at once: one being written while the next is planned. */
const MAX_IN_FLIGHT = 2;
/** At most this many creates in one statement. */
const MAX_GROUP = 100;

interface Waiting extends GroupedCreate {
  resolve(record: IntentRecord | null): void;
  reject(err: unknown): void;
}

/**
 * Group commit of single creates (see docs/design/group-commit.md): a create goes to the
 * database at once when fewer than MAX_IN_FLIGHT statements run; otherwise it waits for one to
 * end and goes with every create that arrived meanwhile, in one statement (one transaction).
 * Each answer is the one {@link IntentsRepository.create} gives, and only after the commit.
 */
export class CreateGroup {
  private queue: Waiting[] = [];
  private inFlight = 0;

  constructor(private readonly intents: Pick<IntentsRepository, 'create' | 'createGroup'>) {}

  /** As IntentsRepository.create: the record, or null when the claim's key was already taken. */
  create(tenantId: string, id: string, intent: NewIntent, claim: IdempotencyClaim | null): Promise<IntentRecord | null> {
    return new Promise((resolve, reject) => {
      this.queue.push({ tenantId, id, intent, claim, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < MAX_IN_FLIGHT && this.queue.length > 0) {
      const group = this.queue.splice(0, MAX_GROUP);
      this.inFlight++;
      void this.write(group).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  private async write(group: Waiting[]): Promise<void> {
    if (group.length > 1) {
      let records: (IntentRecord | null)[] | null = null;
      try {
        records = await this.intents.createGroup(group);
      } catch (err) {
        // The database unreachable (maybe after the commit: unknown): each gets what it would alone.
        if (infrastructureFailure(err)) {
          for (const c of group) c.reject(err);
          return;
        }
        // Something of the group refused (a value, a deadlock): nothing was stored; each runs alone below.
      }
      if (records) {
        group.forEach((c, i) => c.resolve(records[i] ?? null));
        return;
      }
    }
    await Promise.all(group.map((c) => this.intents.create(c.tenantId, c.id, c.intent, c.claim).then(c.resolve, c.reject)));
  }
}
