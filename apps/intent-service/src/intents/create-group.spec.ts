import type { IntentRecord } from '@tradeinfra/contracts';
import { CreateGroup } from './create-group.js';
import type { GroupedCreate, NewIntent } from './intents.repository.js';

const intent = {} as NewIntent;

/** A repository whose single creates wait until released, so the creates behind them group. */
function repository(groupFails?: Error) {
  const singles: { id: string; release: () => void }[] = [];
  const groups: string[][] = [];
  return {
    singles,
    groups,
    create: (_tenant: string, id: string) =>
      new Promise<IntentRecord | null>((resolve) => singles.push({ id, release: () => resolve({ id } as IntentRecord) })),
    createGroup: (creates: GroupedCreate[]) => {
      groups.push(creates.map((c) => c.id));
      return groupFails ? Promise.reject(groupFails) : Promise.resolve(creates.map((c) => ({ id: c.id }) as IntentRecord));
    },
  };
}

describe('CreateGroup', () => {
  it('sends creates at once while fewer than two statements run, then the waiting ones as one group', async () => {
    const repo = repository();
    const group = new CreateGroup(repo);
    const answers = ['a', 'b', 'c', 'd', 'e'].map((id) => group.create('t', id, intent, null));
    expect(repo.singles.map((s) => s.id)).toEqual(['a', 'b']);
    expect(repo.groups).toEqual([]);
    repo.singles[0]!.release();
    await answers[0];
    await answers[2];
    expect(repo.groups).toEqual([['c', 'd', 'e']]);
    repo.singles[1]!.release();
    expect((await Promise.all(answers)).map((r) => r?.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('the database unreachable during a group: every create of it fails with that error, none runs again', async () => {
    const down = Object.assign(new Error('Connection terminated unexpectedly'), {});
    const repo = repository(down);
    const group = new CreateGroup(repo);
    const answers = ['a', 'b', 'c', 'd'].map((id) => group.create('t', id, intent, null).catch((e: Error) => e.message));
    repo.singles[0]!.release();
    repo.singles[1]!.release();
    expect(await Promise.all(answers)).toEqual([{ id: 'a' }, { id: 'b' }, 'Connection terminated unexpectedly', 'Connection terminated unexpectedly']);
    expect(repo.singles.map((s) => s.id)).toEqual(['a', 'b']);
  });
});
