import type { UnsignedTransaction } from '@tradeinfra/contracts';
import { claimed, fakeChain, launched, recordingSubmitter, signedOk, silentLogger, WALLET } from '../test/round-fakes.js';
import { FailureReason } from './checks.js';
import type { Job } from './buy-terms.js';
import type { LaunchStamp, ToSubmit } from './execution.types.js';
import type { Plan } from './round-planner.js';
import { SubmitStep } from './submit-step.js';

const job = (id: string, nonce: number, firstOrFail = false): Job => ({
  intent: claimed(id, { firstOrFail }),
  tx: { from: WALLET, nonce } as unknown as UnsignedTransaction,
});

/** An intents repository that settles whatever it is given, recording each settlement. */
function repo() {
  const settled: { failed: string[]; submitted: string[]; released: string[]; launch: LaunchStamp }[] = [];
  return {
    settled,
    intents: {
      settleRound: (_claim: string, failures: { id: string }[], submit: ToSubmit[], release: string[], _target: bigint, launch: LaunchStamp) => {
        settled.push({ failed: failures.map((f) => f.id), submitted: submit.map((s) => s.id), released: release, launch });
        return Promise.resolve({ submitted: submit, failed: failures.length });
      },
      recordOutcomes: () => Promise.resolve(0),
    },
  };
}

describe('SubmitStep (round step 4: submit)', () => {
  it('records the plan’s failures, sends the signed buys in checking order and gives the totals', async () => {
    const r = repo();
    const sent = recordingSubmitter('rpc');
    const chain = fakeChain({ submitter: sent.submitter });
    const plan: Plan = {
      targetBlock: 101n,
      failures: [{ id: 'x', reason: FailureReason.BuyTaxTooHigh, detail: 'taxed' }],
      jobs: [job('a', 1), job('b', 2)],
      release: [],
    };
    const round = new SubmitStep(r.intents, silentLogger).open(chain, 'lease', plan, launched());
    round.signed([['b', signedOk('b')]]);
    round.signed([['a', signedOk('a')]]);
    expect(await round.finish()).toEqual({ submitted: 2, failed: 1, deferred: 0 });
    expect(sent.calls.flatMap((c) => c.ids)).toEqual(['a', 'b']);
    expect(r.settled.flatMap((s) => s.failed)).toEqual(['x']);
    // Every settlement records the launch the round acted at.
    expect(r.settled[0]!.launch).toEqual({ type: 'block', txHash: null, pendingFrom: null, block: 100n });
  });

  it('hands back the intents a reorg left without a pool, sending nothing', async () => {
    const r = repo();
    const sent = recordingSubmitter('rpc');
    const plan: Plan = { targetBlock: 101n, failures: [], jobs: [], release: ['a', 'b'] };
    const round = new SubmitStep(r.intents, silentLogger).open(fakeChain({ submitter: sent.submitter }), 'lease', plan, launched());
    expect(await round.finish()).toEqual({ submitted: 0, failed: 0, deferred: 2 });
    expect(r.settled.flatMap((s) => s.released)).toEqual(['a', 'b']);
    expect(sent.calls).toEqual([]);
  });

  it('behind a pending launch through relays, sends the buys that are not firstOrFail again alone for the block after, as backups', async () => {
    const r = repo();
    const sent = recordingSubmitter('bundle');
    const chain = fakeChain({ submitter: sent.submitter });
    const plan: Plan = { targetBlock: 101n, failures: [], jobs: [job('first', 1, true), job('plain', 2)], release: [] };
    const round = new SubmitStep(r.intents, silentLogger).open(chain, 'lease', plan, launched(true));
    round.signed([
      ['first', signedOk('first')],
      ['plain', signedOk('plain')],
    ]);
    await round.finish();
    await round.afterSent();
    expect(sent.calls[0]).toMatchObject({ ids: ['first', 'plain'], targetBlock: 101n, behind: launched(true).pending!.raw });
    expect(sent.calls.at(-1)).toEqual({ ids: ['plain'], targetBlock: 102n });
    // Sent for the block after head 100: the follow step sends them again only once block 101 comes without them.
    expect(chain.resentAt).toBe(100n);
  });
});
