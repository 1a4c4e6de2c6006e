import type { UnsignedTransaction } from '@tradeinfra/contracts';
import { claimed, fakeChain, launched, RELAYER, signedOk } from '../test/round-fakes.js';
import type { Job } from './buy-terms.js';
import type { SignJob, SignResult } from './signed-buy.js';
import { SignStep } from './sign-step.js';

const tx = (nonce: number) => ({ nonce, from: '0xaa' }) as unknown as UnsignedTransaction;
const job = (id: string, nonce: number, over: Parameters<typeof claimed>[1] = {}): Job => ({ intent: claimed(id, over), tx: tx(nonce) });

/** A webhook signer that signs everything and records each request. */
function webhook() {
  const single: SignJob[] = [];
  const batches: SignJob[][] = [];
  return {
    single,
    batches,
    signer: {
      sign: (j: SignJob) => {
        single.push(j);
        return Promise.resolve(signedOk(j.intentId));
      },
      signBatch: (jobs: SignJob[]) => {
        batches.push(jobs);
        return Promise.resolve(jobs.map((j) => signedOk(j.intentId)));
      },
    },
  };
}

/** A chain whose relayer and development signer sign everything, recording the nonces they were given. */
function signers() {
  const relayed: number[] = [];
  const dev: number[] = [];
  const signer = (into: number[]) => ({ sign: (t: UnsignedTransaction) => (into.push(t.nonce), Promise.resolve(signedOk(`n${t.nonce}`))) });
  const chain = fakeChain({
    wallets: { executor: '0xexec', relayerAddress: RELAYER, relayer: signer(relayed) as never },
    devSigner: { ...signer(dev), holds: () => true } as never,
  });
  return { chain, relayed, dev };
}

describe('SignStep (round step 3: sign)', () => {
  it('asks each buy’s own signer: the relayer for a wallet intent, the webhook for a bot intent, a development signer without one', async () => {
    const w = webhook();
    const s = signers();
    const results: [string, SignResult][] = [];
    const jobs = [job('wallet', 1, { signature: '0xsig' }), job('bot', 2), job('dev', 3, { webhookUrl: null })];
    await new SignStep(w.signer).signAll(s.chain, jobs, 101n, launched(), (r) => results.push(...r));
    expect(s.relayed).toEqual([1]);
    expect(w.single.map((j) => j.intentId)).toEqual(['bot']);
    expect(s.dev).toEqual([3]);
    expect(new Map(results).get('bot')).toEqual(signedOk('bot'));
    expect(results.map(([id]) => id).sort()).toEqual(['bot', 'dev', 'wallet']);
  });

  it('tells the webhook the launch block, the target block and the launch the buy is for', async () => {
    const w = webhook();
    await new SignStep(w.signer).signAll(fakeChain(), [job('bot', 1)], 101n, launched(), () => undefined);
    expect(w.single[0]).toMatchObject({ intentId: 'bot', tenantId: 't', launchBlock: 100n, targetBlock: 101n, launch: { type: 'block', blockNumber: 100n } });
  });

  it('asks a batching webhook once for all of a tenant’s buys, handing on a result per buy', async () => {
    const w = webhook();
    const results: [string, SignResult][] = [];
    const jobs = [job('a', 1, { webhookBatch: true }), job('b', 2, { webhookBatch: true })];
    await new SignStep(w.signer).signAll(fakeChain(), jobs, 101n, launched(), (r) => results.push(...r));
    expect(w.batches.map((b) => b.map((j) => j.intentId))).toEqual([['a', 'b']]);
    expect(results).toEqual([
      ['a', signedOk('a')],
      ['b', signedOk('b')],
    ]);
  });
});
