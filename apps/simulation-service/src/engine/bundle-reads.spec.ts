import type { ChainSource } from '../chain/chain-state.js';
import { BundleReads } from './bundle-reads.js';

const A = `0x${'aa'.repeat(20)}`;
const B = `0x${'bb'.repeat(20)}`;
const slot = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

/** A chain that knows nothing in advance: every fetched slot of A is 7, of B 9; each fetch is recorded. */
function coldChain(lastKnownB?: number) {
  const fetched: string[][] = [];
  const pending: (() => void)[] = [];
  const chain = {
    config: { chainId: 1, rpcUrls: ['http://127.0.0.1'], hardfork: null },
    hasAccessLists: false,
    cachedAccount: () => undefined,
    cachedStorage: () => undefined,
    cachedBlockHash: () => undefined,
    lastKnownAccount: () => undefined,
    lastKnownStorage: (address: string) => (address === B && lastKnownB !== undefined ? Uint8Array.of(lastKnownB) : undefined),
    fetchMisses: (_block: bigint, keys: Iterable<string>) => {
      const list = [...keys];
      fetched.push(list);
      // Answered only when the test says so: what was sent early is in flight meanwhile.
      return new Promise<Map<string, Uint8Array>>((resolve) =>
        pending.push(() => resolve(new Map(list.map((k) => [k, Uint8Array.of(k.startsWith(`s:${A}`) ? 7 : 9)])))),
      );
    },
  } as unknown as ChainSource;
  const answer = () => pending.splice(0).forEach((go) => go());
  return { chain, fetched, answer };
}

describe('BundleReads', () => {
  it('sends each call’s misses upstream as the call ends, and checks every assumption', async () => {
    const { chain, fetched, answer } = coldChain();
    const reads = new BundleReads(chain, 10n);
    reads.beginRound();
    reads.call = 0;
    expect(reads.storage(A, slot(1))).toEqual(new Uint8Array(0)); // assumed empty
    reads.fetchEarly();
    // Sent now, while the run goes on.
    expect(fetched).toEqual([[`s:${A}:${slot(1)}`]]);
    reads.call = 1;
    reads.storage(B, slot(2));
    reads.storage(A, slot(1)); // already on its way
    reads.fetchEarly();
    expect(fetched).toEqual([[`s:${A}:${slot(1)}`], [`s:${B}:${slot(2)}`]]);
    reads.fetchEarly(); // nothing new
    expect(fetched).toHaveLength(2);
    reads.call = 2;
    reads.storage(B, slot(3)); // the last call's miss: fetched after the run
    const wrong = reads.fetchMisses();
    await Promise.resolve();
    expect(fetched).toEqual([[`s:${A}:${slot(1)}`], [`s:${B}:${slot(2)}`], [`s:${B}:${slot(3)}`]]);
    answer();
    // Call 0 assumed an empty slot that holds 7: the run resumes from call 0.
    expect(await wrong).toBe(0);
    expect(reads.fetches).toBe(1);
    // Every answer is known to the next round.
    reads.beginRound();
    expect(reads.storage(A, slot(1))).toEqual(Uint8Array.of(7));
    expect(reads.storage(B, slot(2))).toEqual(Uint8Array.of(9));
    expect(reads.storage(B, slot(3))).toEqual(Uint8Array.of(9));
    expect(reads.missCount).toBe(0);
  });

  it('when every miss went early and held, fetches nothing more: the keys worth having wait for a run that needs them', async () => {
    const { chain, fetched, answer } = coldChain(9);
    const reads = new BundleReads(chain, 10n);
    reads.beginRound();
    expect(reads.storage(B, slot(3))).toEqual(Uint8Array.of(9)); // assumed from the last value known
    reads.fetchEarly();
    const wrong = reads.fetchMisses([`s:${B}:${slot(4)}`]);
    answer();
    expect(await wrong).toBe(-1);
    expect(fetched).toEqual([[`s:${B}:${slot(3)}`]]);
  });

  it('when a miss that went early was wrong, fetches the keys worth having before the run resumes', async () => {
    const { chain, fetched, answer } = coldChain();
    const reads = new BundleReads(chain, 10n);
    reads.beginRound();
    reads.storage(B, slot(3));
    reads.fetchEarly();
    const wrong = reads.fetchMisses([`s:${B}:${slot(4)}`]);
    answer();
    await new Promise((resolve) => setImmediate(resolve));
    answer();
    expect(await wrong).toBe(0);
    expect(fetched).toEqual([[`s:${B}:${slot(3)}`], [`s:${B}:${slot(4)}`]]);
  });

  it('fetches nothing more after the run when every miss went early', async () => {
    const { chain, fetched, answer } = coldChain();
    const reads = new BundleReads(chain, 10n);
    reads.beginRound();
    reads.storage(B, slot(3));
    reads.fetchEarly();
    const wrong = reads.fetchMisses();
    answer();
    expect(await wrong).toBe(0);
    expect(fetched).toHaveLength(1);
  });
});
