import { Logger } from '@nestjs/common';
import { claimed, ETH, fakeChain, launched, recordingSubmitter, TOKEN } from '../test/round-fakes.js';
import type { IntentServiceEnv } from '../config/env.js';
import type { TokenProbe } from './checks.js';
import type { ClaimedIntent, LaunchedToken, ToSubmit } from './execution.types.js';
import { EXECUTION_UNAVAILABLE, Executor } from './executor.js';
import type { RoundChain } from './round-chain.js';

const HEAD = { number: '0x64', hash: '0xhead', timestamp: '0x0', baseFeePerGas: '0x1' };
const PROBE: TokenProbe = { buyTax: 0n, sellTax: 0n, buyGas: 120_000n };
const word = (n: bigint) => n.toString(16).padStart(64, '0');

/** A node at HEAD whose pool (token1: TOKEN, token0: the wrapped native) holds 10 ETH against 1M tokens, and whose senders hold 10 ETH. */
const node = {
  call: (method: string) => (method === 'eth_getBlockByNumber' ? Promise.resolve(HEAD) : Promise.reject(new Error(`unexpected ${method}`))),
  all: (calls: { method: string }[]) =>
    Promise.resolve(
      calls.map(({ method }) =>
        method === 'eth_getBalance'
          ? `0x${(10n * ETH).toString(16)}`
          : method === 'eth_call'
            ? `0x${word(10n * ETH)}${word(1_000_000n * ETH)}${word(0n)}`
            : '0x0',
      ),
    ),
};

/** An executor of one chain on fakes: what it claims, settles, hands back and sends is recorded. */
function executor(opts: { launches?: LaunchedToken[]; waiting?: ClaimedIntent[]; probe?: () => Promise<TokenProbe> } = {}) {
  const log = { locked: 0, claimed: [] as string[], handedBack: [] as string[], released: [] as [string, string][], settled: [] as string[], wakes: 0 };
  const sent = recordingSubmitter('rpc');
  const chain = fakeChain({ rpc: node as never, submitter: sent.submitter });
  const repo = {
    withChainLock: <T>(_chainId: number, work: () => Promise<T>) => (log.locked++, work()),
    submitted: () => Promise.resolve([]),
    launchedTokens: () => Promise.resolve(opts.launches ?? []),
    pendingNonces: () => Promise.resolve(new Map()),
    waitingSenders: () => Promise.resolve([]),
  };
  const intents = {
    claim: (_chainId: number, token: string) => (log.claimed.push(token), Promise.resolve(opts.waiting ?? [claimed('a', { webhookUrl: null })])),
    handBack: (_claim: string, ids: string[]) => (log.handedBack.push(...ids), Promise.resolve()),
    release: (_claim: string, ids: string[], reason: string) => (log.released.push(...ids.map((id): [string, string] => [id, reason])), Promise.resolve()),
    settleRound: (_claim: string, failures: unknown[], submit: ToSubmit[]) => (
      log.settled.push(...submit.map((s) => s.id)),
      Promise.resolve({ submitted: submit, failed: failures.length })
    ),
    recordOutcomes: () => Promise.resolve(0),
    claimableHead: () => Promise.resolve([]),
  };
  const env = {
    SIGNER_TIMEOUT_MS: 1_000,
    LAUNCH_POLL_INTERVAL_MS: 1_000,
    EXECUTION_BATCH: 100,
    EXECUTION_DEFAULT_GAS_TIP_WEI: '1000000000',
    EXECUTION_PREFETCH_SENDERS: 0,
    watchedChains: [],
  } as unknown as IntentServiceEnv;
  const prober = { probe: opts.probe ?? (() => Promise.resolve(PROBE)) };
  const relay = { wake: () => void log.wakes++ };
  const heads = { recent: () => 100n };
  const x = new Executor(repo as never, intents as never, prober as never, relay as never, heads as never, {} as never, {} as never, env, [chain], () => 0);
  const round = () => x['step'](x['chains'].get(31337) as RoundChain);
  return { x, round, log, sent: sent.calls };
}

describe('Executor (the coordinator of a round)', () => {
  beforeAll(() => Logger.overrideLogger(false));
  afterAll(() => Logger.overrideLogger(['log', 'error', 'warn']));

  it('takes no lock on a tick with no buys out and no launch', async () => {
    const e = executor();
    expect(await e.round()).toBe(false);
    expect(e.log.locked).toBe(0);
  });

  it('at a launch in a block: claims its intents, plans, signs and sends each buy for the block after the head, and wakes the outbox relay', async () => {
    const e = executor({ launches: [launched()] });
    await e.round();
    expect(e.log.claimed).toEqual([TOKEN]);
    expect(e.log.settled).toEqual(['a']);
    expect(e.sent).toEqual([{ ids: ['a'], targetBlock: 101n }]);
    expect(e.log.wakes).toBe(1);
  });

  it('executes a pending launch as it is recognised, from memory, without waiting for a stored row', async () => {
    const e = executor();
    e.x.launchSeen(31337, [launched(true)], Promise.resolve([TOKEN.toLowerCase()]));
    await e.round();
    expect(e.log.claimed).toEqual([TOKEN]);
    expect(e.sent).toEqual([{ ids: ['a'], targetBlock: 101n }]);
  });

  it('hands back, untouched, the intents of a pending launch its store did not record as this launch’s', async () => {
    const e = executor();
    e.x.launchSeen(31337, [launched(true)], Promise.resolve([]));
    await e.round();
    expect(e.log.handedBack).toEqual(['a']);
    expect(e.log.settled).toEqual([]);
    expect(e.sent).toEqual([]);
  });

  it('releases the claim as execution_unavailable when the simulation service fails, deciding nothing', async () => {
    const e = executor({ launches: [launched()], probe: () => Promise.reject(new Error('simulation service down')) });
    expect(await e.round()).toBe(false);
    expect(e.log.released).toEqual([['a', EXECUTION_UNAVAILABLE]]);
    expect(e.log.settled).toEqual([]);
  });
});
