import { claimed, TOKEN } from '../test/round-fakes.js';
import { ClaimStep } from './claim-step.js';
import type { ClaimedIntent } from './execution.types.js';

/** An intents repository holding `waiting` per token, recording claims, hand-backs and releases. */
function repo(waiting: Record<string, ClaimedIntent[]> = {}, failing: string[] = []) {
  const claims: { chainId: number; token: string; claimToken: string; limit: number }[] = [];
  const handedBack: { claimToken: string; ids: string[] }[] = [];
  const released: { claimToken: string; ids: string[]; reason: string }[] = [];
  const intents = {
    claim: (chainId: number, token: string, claimToken: string, limit: number) => {
      claims.push({ chainId, token, claimToken, limit });
      if (failing.includes(token)) return Promise.reject(new Error('database down'));
      return Promise.resolve((waiting[token] ?? []).slice(0, limit));
    },
    handBack: (claimToken: string, ids: string[]) => {
      handedBack.push({ claimToken, ids });
      return Promise.resolve();
    },
    release: (claimToken: string, ids: string[], reason: string) => {
      released.push({ claimToken, ids, reason });
      return Promise.resolve();
    },
  };
  return { intents, claims, handedBack, released };
}

const tokens = () => {
  let n = 0;
  return () => `lease-${++n}`;
};

describe('ClaimStep (round step 1: claim)', () => {
  it('leases at most a batch of the token’s waiting intents under a fresh claim token', async () => {
    const r = repo({ [TOKEN]: [claimed('a'), claimed('b'), claimed('c')] });
    const step = new ClaimStep(r.intents, 2, tokens());
    const claim = await step.claim(31337, TOKEN);
    expect(claim).toEqual({ claimToken: 'lease-1', intents: [claimed('a'), claimed('b')] });
    expect(r.claims).toEqual([{ chainId: 31337, token: TOKEN, claimToken: 'lease-1', limit: 2 }]);
  });

  it('uses the claim made early (as a pending launch was recognised) instead of claiming again', async () => {
    const r = repo({ [TOKEN]: [claimed('a')] });
    const step = new ClaimStep(r.intents, 10, tokens());
    const early = step.early(31337, [TOKEN]);
    const claim = await step.claim(31337, TOKEN, early.take(TOKEN.toLowerCase()));
    expect(claim.intents.map((i) => i.id)).toEqual(['a']);
    expect(r.claims).toHaveLength(1);
    expect(early.take(TOKEN)).toBeUndefined(); // once only
  });

  it('hands back untouched, or releases with the reason a transient failure gives', async () => {
    const r = repo();
    const step = new ClaimStep(r.intents, 10, tokens());
    await step.handBack({ claimToken: 'x', intents: [claimed('a')] });
    await step.handBack({ claimToken: 'y', intents: [] }); // holds nothing: nothing asked
    await step.release({ claimToken: 'z', intents: [claimed('b')] }, 'execution_unavailable');
    expect(r.handedBack).toEqual([{ claimToken: 'x', ids: ['a'] }]);
    expect(r.released).toEqual([{ claimToken: 'z', ids: ['b'], reason: 'execution_unavailable' }]);
  });

  it('hands back at the round’s end the early claims no launch took; a failed early claim holds nothing', async () => {
    const other = '0x00000000000000000000000000000000000000Ab';
    const broken = '0x00000000000000000000000000000000000000Cd';
    const r = repo({ [TOKEN]: [claimed('a')], [other]: [claimed('b')] }, [broken]);
    const step = new ClaimStep(r.intents, 10, tokens());
    const early = step.early(31337, [TOKEN, other, broken]);
    await step.claim(31337, TOKEN, early.take(TOKEN));
    await early.handBackRest();
    expect(r.handedBack).toEqual([{ claimToken: 'lease-2', ids: ['b'] }]);
  });
});
