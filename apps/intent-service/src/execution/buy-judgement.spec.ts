import { FailureReason } from './checks.js';
import { judgeOrphan, judgeRevertedBehind, judgeWaiting, launchSeenMined, nonceUsed, outcomeLaunch, planResends, settleMined } from './buy-judgement.js';
import { type SubmittedIntent } from './execution.repository.js';

const buy = (id: string, over: Partial<SubmittedIntent> = {}): SubmittedIntent => ({
  id,
  wallet: '0x00000000000000000000000000000000000000aa',
  txHash: `0xhash-${id}`,
  signedTx: `0xraw-${id}`,
  nonce: 5n,
  targetBlock: 100n,
  firstOrFail: false,
  expiry: 2_000n,
  bribe: 10n,
  behind: null,
  launchBlock: null,
  sentBehind: null,
  launchStamped: false,
  tokenLaunch: null,
  ...over,
});

describe('settleMined', () => {
  it('completes a mined buy at its block time, fails a reverted one, and leaves those with no receipt waiting', () => {
    const at = new Date(1_700_000_000_000);
    const { outcomes, waiting } = settleMined(
      [buy('ok'), buy('rev'), buy('none')],
      [{ status: '0x1', blockNumber: '0x64' }, { status: '0x0', blockNumber: '0x64' }, null],
      new Map([['0x64', at]]),
    );
    expect(outcomes).toEqual([
      { id: 'ok', status: 'completed', reason: null, executedAt: at, data: { txHash: '0xhash-ok' } },
      { id: 'rev', status: 'failed', reason: FailureReason.Reverted, executedAt: null, data: { txHash: '0xhash-rev' } },
    ]);
    expect(waiting.map((w) => w.id)).toEqual(['none']);
  });

  it('calls a firstOrFail buy that reverted outside its target block not_included, with the target', () => {
    const { outcomes } = settleMined([buy('f', { firstOrFail: true })], [{ status: '0x0', blockNumber: '0x65' }], new Map());
    expect(outcomes).toEqual([
      { id: 'f', status: 'failed', reason: FailureReason.NotIncluded, executedAt: null, data: { txHash: '0xhash-f', targetBlock: '100' } },
    ]);
  });

  it("behind a pending launch mined later than the block it was first sent for: judges a firstOrFail buy by the launch's block", () => {
    const behind = { firstOrFail: true, targetBlock: 100n, launchBlock: 102n };
    const { outcomes } = settleMined(
      [buy('in', behind), buy('after', behind)],
      [
        { status: '0x0', blockNumber: '0x66' },
        { status: '0x0', blockNumber: '0x67' },
      ],
      new Map(),
    );
    expect(outcomes).toEqual([
      { id: 'in', status: 'failed', reason: FailureReason.Reverted, executedAt: null, data: { txHash: '0xhash-in' } },
      { id: 'after', status: 'failed', reason: FailureReason.NotIncluded, executedAt: null, data: { txHash: '0xhash-after', targetBlock: '102' } },
    ]);
  });

  it('completes a firstOrFail buy that succeeded in another block (the contract guards the block)', () => {
    const { outcomes } = settleMined([buy('f', { firstOrFail: true })], [{ status: '0x1', blockNumber: '0x65' }], new Map());
    expect(outcomes[0]!.status).toBe('completed');
    expect(outcomes[0]!.executedAt).toBeNull();
  });
});

describe('buys sent behind a pending launch that never came', () => {
  const L = '0xlaunch';
  const behind = (id: string, over: Partial<SubmittedIntent> = {}) => buy(id, { sentBehind: { txHash: L, sender: '0xdeployer', nonce: 7n }, ...over });
  const reverted = (block: number, index = 1) => ({ status: '0x0', blockNumber: `0x${block.toString(16)}`, transactionIndex: `0x${index.toString(16)}` });
  const launchAt = (block: number, index: number, status = '0x1') => ({
    status,
    blockNumber: `0x${block.toString(16)}`,
    transactionIndex: `0x${index.toString(16)}`,
  });

  it('settleMined leaves a reverted buy sent behind a pending launch to be judged against that launch, and judges the others as before', () => {
    const { outcomes, revertedBehind } = settleMined([behind('b'), buy('plain')], [reverted(100), reverted(100)], new Map());
    expect(revertedBehind.map((r) => r.buy.id)).toEqual(['b']);
    expect(outcomes.map((o) => [o.id, o.reason])).toEqual([['plain', FailureReason.Reverted]]);
  });

  it('a launch mined before the buy: the revert is the buy’s own (firstOrFail outside the launch’s block: not_included)', () => {
    expect(judgeRevertedBehind(behind('b'), reverted(100, 3), { receipt: launchAt(100, 2), senderNonce: 8n })).toEqual({
      outcome: { id: 'b', status: 'failed', reason: FailureReason.Reverted, executedAt: null, data: { txHash: '0xhash-b' } },
    });
    expect(judgeRevertedBehind(behind('f', { firstOrFail: true }), reverted(101), { receipt: launchAt(100, 2), senderNonce: 8n })).toEqual({
      outcome: { id: 'f', status: 'failed', reason: FailureReason.NotIncluded, executedAt: null, data: { txHash: '0xhash-f', targetBlock: '100' } },
    });
  });

  it('the launch’s nonce taken by another transaction: launch_replaced, the intent waits again (firstOrFail too)', () => {
    for (const b of [behind('b'), behind('f', { firstOrFail: true })]) {
      expect(judgeRevertedBehind(b, reverted(100), { receipt: null, senderNonce: 8n })).toEqual({
        waitAgain: { id: b.id, txHash: b.txHash, reason: 'launch_replaced', launchTxHash: L },
      });
    }
  });

  it('the launch not mined with its nonce free, mined and reverted, or mined after the buy: launch_dropped', () => {
    const fates = [
      { receipt: null, senderNonce: 7n },
      { receipt: launchAt(100, 0, '0x0'), senderNonce: 8n },
      { receipt: launchAt(100, 5), senderNonce: 8n },
      { receipt: launchAt(101, 0), senderNonce: 7n },
    ];
    for (const fate of fates) expect(judgeRevertedBehind(behind('b'), reverted(100, 4), fate)).toMatchObject({ waitAgain: { reason: 'launch_dropped' } });
  });

  it('an unmined buy behind a launch gone: waits while the node holds it, waits again once it does not, fails nonce_used when its nonce was taken', () => {
    const gone = { receipt: null, senderNonce: 8n };
    expect(judgeOrphan(behind('b'), gone, true, 5n)).toBeNull();
    expect(judgeOrphan(behind('b'), gone, false, 5n)).toEqual({ waitAgain: { id: 'b', txHash: '0xhash-b', reason: 'launch_replaced', launchTxHash: L } });
    expect(judgeOrphan(behind('b'), { receipt: null, senderNonce: 7n }, false, 5n)).toMatchObject({ waitAgain: { reason: 'launch_dropped' } });
    expect(judgeOrphan(behind('b'), gone, false, 6n)).toEqual({
      outcome: { id: 'b', status: 'failed', reason: FailureReason.NonceUsed, executedAt: null, data: { txHash: '0xhash-b' } },
    });
  });
});

describe('outcomeLaunch: a settled buy is recorded with its launch’s block', () => {
  const behind = { sentBehind: { txHash: '0xlaunch', sender: '0xdeployer', nonce: 7n } };
  const minedAt = (block: number) => ({ status: '0x1', blockNumber: `0x${block.toString(16)}`, transactionIndex: '0x0' });

  it('behind a pending launch: that launch, from its receipt, before the block watcher has it', () => {
    expect(outcomeLaunch(buy('b', behind), minedAt(100))).toEqual({ txHash: '0xlaunch', block: 100n });
  });

  it('behind a launch the chain does not show mined: the token’s launch once recorded (another transaction), else not yet', () => {
    expect(outcomeLaunch(buy('b', behind), null)).toBeUndefined();
    expect(outcomeLaunch(buy('b', { ...behind, tokenLaunch: { txHash: '0xother', block: 99n } }), null)).toEqual({ txHash: '0xother', block: 99n });
  });

  it('a row that holds its launch block writes nothing; a buy at a launch in a block takes the recorded launch, or nothing when none is', () => {
    expect(outcomeLaunch(buy('b', { ...behind, launchStamped: true }), minedAt(100))).toBeNull();
    expect(outcomeLaunch(buy('p', { tokenLaunch: { txHash: null, block: 50n } }), undefined)).toEqual({ txHash: null, block: 50n });
    expect(outcomeLaunch(buy('p'), undefined)).toBeNull();
  });
});

describe('launchSeenMined: a launch the chain shows mined before the block watcher recorded it', () => {
  const waitingBehind = buy('f', { firstOrFail: true, behind: '0xraw', sentBehind: { txHash: '0xlaunch', sender: '0xdeployer', nonce: 7n } });

  it('takes the buy out from behind it, with its block as the launch block: a firstOrFail buy not in it fails not_included, none is sent behind it again', () => {
    const judged = launchSeenMined(waitingBehind, { status: '0x1', blockNumber: '0x64' });
    expect(judged).toMatchObject({ behind: null, launchBlock: 100n });
    expect(judgeWaiting([judged], ['0x5'], { number: 100n, timestamp: 1_000n }).outcomes).toEqual([
      { id: 'f', status: 'failed', reason: FailureReason.NotIncluded, executedAt: null, data: { txHash: '0xhash-f', targetBlock: '100' } },
    ]);
  });

  it('leaves it behind a launch not mined, or mined and reverted', () => {
    expect(launchSeenMined(waitingBehind, null)).toBe(waitingBehind);
    expect(launchSeenMined(waitingBehind, { status: '0x0', blockNumber: '0x64' })).toBe(waitingBehind);
  });
});

describe('judgeWaiting', () => {
  const head = { number: 99n, timestamp: 1_000n };

  it('resends a buy whose nonce is still free, before expiry and target', () => {
    expect(judgeWaiting([buy('a')], ['0x5'], head)).toEqual({ outcomes: [], nonceTaken: [], resend: [buy('a')] });
  });

  it('fails a firstOrFail buy once the head reached its target block', () => {
    const r = judgeWaiting([buy('f', { firstOrFail: true })], ['0x5'], { ...head, number: 100n });
    expect(r.outcomes).toEqual([
      { id: 'f', status: 'failed', reason: FailureReason.NotIncluded, executedAt: null, data: { txHash: '0xhash-f', targetBlock: '100' } },
    ]);
    expect(r.resend).toEqual([]);
  });

  it('keeps a firstOrFail buy sent behind a launch still pending past its target: its block (the launch’s) is still to come', () => {
    const f = buy('f', { firstOrFail: true, behind: '0xlaunch' });
    expect(judgeWaiting([f], ['0x5'], { ...head, number: 103n })).toEqual({ outcomes: [], nonceTaken: [], resend: [f] });
  });

  it('expires a buy past its expiry, and hands one whose nonce moved on to be confirmed', () => {
    const r = judgeWaiting([buy('old', { expiry: 999n }), buy('taken')], ['0x5', '0x6'], head);
    expect(r.outcomes).toEqual([
      { id: 'old', status: 'expired', reason: 'expiry reached before the buy was included', executedAt: null, data: { txHash: '0xhash-old' } },
    ]);
    expect(r.nonceTaken.map((s) => s.id)).toEqual(['taken']);
    expect(r.resend).toEqual([]);
  });
});

describe('nonceUsed', () => {
  it('fails only the buys that still have no receipt and no error when read again', () => {
    const out = nonceUsed([buy('gone'), buy('mined'), buy('unknown')], [{ result: null }, { result: { status: '0x1' } }, { error: { message: 'x' } }]);
    expect(out).toEqual([{ id: 'gone', status: 'failed', reason: FailureReason.NonceUsed, executedAt: null, data: { txHash: '0xhash-gone' } }]);
  });
});

describe('planResends', () => {
  const ids = (r: { submissions: { intentId: string }[] }) => r.submissions.map((s) => s.intentId);

  it('sends the buys of a launch in a block again, each for the next block', () => {
    const plans = planResends([buy('a'), buy('b')], 99n, true);
    expect(plans).toHaveLength(1);
    expect(plans[0]).toMatchObject({ targetBlock: 100n });
    expect(plans[0]!.behind).toBeUndefined();
    expect(ids(plans[0]!)).toEqual(['a', 'b']);
  });

  it('sends buys behind a launch still pending again behind it, in checking order, with backups of the non-firstOrFail ones for the block after', () => {
    const launch = '0xlaunch';
    const plans = planResends(
      [
        buy('low', { behind: launch, bribe: 1n }),
        buy('fof', { behind: launch, bribe: 5n, firstOrFail: true }),
        buy('high', { behind: launch, bribe: 9n }),
        buy('plain'),
      ],
      99n,
      true,
    );
    expect(plans.map((p) => ({ ids: ids(p), targetBlock: p.targetBlock, behind: p.behind }))).toEqual([
      { ids: ['plain'], targetBlock: 100n, behind: undefined },
      { ids: ['high', 'fof', 'low'], targetBlock: 100n, behind: launch },
      { ids: ['high', 'low'], targetBlock: 101n, behind: undefined },
    ]);
  });

  it('sends no backup to a node (no bundles): the buys wait in its mempool behind the launch', () => {
    const plans = planResends([buy('a', { behind: '0xlaunch' })], 99n, false);
    expect(plans.map((p) => p.targetBlock)).toEqual([100n]);
  });
});
