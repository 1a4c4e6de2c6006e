import { fakeChain, recordingSubmitter, silentLogger, submitted } from '../test/round-fakes.js';
import type { Followed } from './buy-judgement.js';
import type { Outcome, SubmittedIntent, WaitingAgain } from './execution.types.js';
import { FollowStep } from './follow-step.js';

const HEAD = { number: '0x66', hash: '0xhead', timestamp: '0x0' };

/** A follow step whose judge decides `followed`, on an intents repository recording what it is told. */
function step(followed: Partial<Followed>) {
  const recorded: Outcome[] = [];
  const waiting: WaitingAgain[] = [];
  const judged: SubmittedIntent[][] = [];
  let wakes = 0;
  const forgotten: number[] = [];
  const follow = new FollowStep({
    intents: {
      recordOutcomes: (o: Outcome[]) => (recorded.push(...o), Promise.resolve(o.length)),
      waitAgain: (w: WaitingAgain[]) => (waiting.push(...w), Promise.resolve(w.length)),
    },
    relay: { wake: () => void wakes++ },
    logger: silentLogger,
    judge: (_chain, buys) => (judged.push(buys), Promise.resolve({ outcomes: [], waitAgain: [], resend: [], ...followed })),
  });
  follow.forgetGoneLaunches = (chainId) => (forgotten.push(chainId), Promise.resolve());
  return { follow, recorded, waiting, judged, forgotten, wakes: () => wakes };
}

describe('FollowStep (round step 5: follow)', () => {
  it('judges nothing when no buy is out', async () => {
    const s = step({});
    expect(await s.follow.follow(fakeChain(), HEAD, Promise.resolve([]))).toBe(false);
    expect(s.judged).toEqual([]);
  });

  it('records the outcomes of mined or missed buys and wakes the outbox relay', async () => {
    const outcome: Outcome = { id: 'a', status: 'completed', reason: null, executedAt: new Date(0), data: { txHash: '0xhash-a' } };
    const s = step({ outcomes: [outcome] });
    expect(await s.follow.follow(fakeChain(), HEAD, Promise.resolve([submitted('a')]))).toBe(false);
    expect(s.recorded).toEqual([outcome]);
    expect(s.wakes()).toBe(1);
  });

  it('puts the intents of a launch that never came back to waiting, forgets the chain’s lost launches, and asks for another round', async () => {
    const again: WaitingAgain = { id: 'a', txHash: '0xhash-a', reason: 'launch_dropped', launchTxHash: '0xlaunch' };
    const s = step({ waitAgain: [again] });
    expect(await s.follow.follow(fakeChain(), HEAD, Promise.resolve([submitted('a')]))).toBe(true);
    expect(s.waiting).toEqual([again]);
    expect(s.forgotten).toEqual([31337]);
  });

  it('sends the buys a block came without again for the next block, once per head', async () => {
    const sent = recordingSubmitter('rpc');
    const chain = fakeChain({ submitter: sent.submitter });
    const s = step({ resend: [submitted('a')] });
    await s.follow.follow(chain, HEAD, Promise.resolve([submitted('a')]));
    await s.follow.follow(chain, HEAD, Promise.resolve([submitted('a')]));
    expect(sent.calls).toEqual([{ ids: ['a'], targetBlock: 0x67n }]);
    expect(chain.resentAt).toBe(0x66n);
  });
});
