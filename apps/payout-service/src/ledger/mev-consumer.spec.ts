import { collectFetch } from './mev-consumer.js';

describe('collectFetch', () => {
  it('keeps the messages a fetch delivered before it failed, with the failure', async () => {
    const heartbeatsMissed = new Error('heartbeats missed');
    async function* fetch() {
      yield 'a';
      yield 'b';
      throw heartbeatsMissed;
    }
    await expect(collectFetch(async () => fetch())).resolves.toEqual({ batch: ['a', 'b'], error: heartbeatsMissed });
  });

  it('returns every message of a fetch that ends normally, and no error', async () => {
    async function* fetch() {
      yield* [1, 2, 3];
    }
    const result = await collectFetch(async () => fetch());
    expect(result).toEqual({ batch: [1, 2, 3] });
    expect('error' in result).toBe(false);
  });

  it('reports a fetch that could not start, with nothing to apply', async () => {
    const down = new Error('connection closed');
    await expect(
      collectFetch(async () => {
        throw down;
      }),
    ).resolves.toEqual({ batch: [], error: down });
  });
});
