import { type SimulatedCall, type SimulationResult } from '@tradeinfra/contracts';
import { getAmountOut } from '../chain/uniswap-v2.js';
import { FRACTION_SCALE, lossScaled } from './checks.js';
import { type ClaimedIntent } from './execution.repository.js';
import { type SimulationClient } from '../chain/simulation-client.js';
import { id } from 'ethers';
import { probeIntent, readProbeBehindLaunch, TokenProber } from './token-prober.js';

const ETH = 10n ** 18n;
const TOKEN = '0x1000000000000000000000000000000000000001'; // below the wrapped native: token0
const WRAPPED = '0xf000000000000000000000000000000000000002';
const config = { chainId: 31337, wrappedNative: WRAPPED, router: '0x0000000000000000000000000000000000000e01' };
const launch = { token: TOKEN, pair: '0x0000000000000000000000000000000000000a11' };
const pool = { reserveNative: 10n * ETH, reserveToken: 1_000_000n * ETH, liquidityCents: null };
const hex = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}`;
const call = (over: Partial<SimulatedCall> = {}): SimulatedCall => ({
  logs: [],
  gasUsed: '0x0',
  result: '',
  status: 1,
  internalTransfers: [],
  updated: {},
  ...over,
});
const intent = {
  id: 'i',
  wallet: '0x00000000000000000000000000000000000000aa',
  buyAmount: String(ETH),
  bribe: '0',
  feeBps: null,
  feeRecipient: null,
  expiry: 9n,
} as ClaimedIntent;

/** A simulation that answers each request with the next of `answers`, and keeps the requests. */
function simulation(answers: SimulatedCall[][]) {
  const requests: { calls: unknown[]; overrides?: unknown }[] = [];
  const fake = {
    simulate: (request: { calls: unknown[] }) => {
      requests.push(request);
      return Promise.resolve({ calls: answers.shift()! } as SimulationResult);
    },
  };
  return { prober: new TokenProber(fake as unknown as SimulationClient), requests };
}

/** The first simulation's answer: a buy that gives `received` tokens, then a sale that gives `gotNative`. */
function firstAnswer(received: bigint, gotNative: bigint | null, reserves = { token: pool.reserveToken - received, native: pool.reserveNative + ETH }) {
  return [
    call({ result: hex(0n) }),
    call({ gasUsed: '0x249f0' }),
    call({ result: hex(received) }),
    call({ result: `${hex(reserves.token)}${hex(reserves.native).slice(2)}` }),
    call(),
    call({ result: hex(0n) }),
    call({ status: gotNative === null ? 0 : 1 }),
    call({ result: hex(gotNative ?? 0n) }),
  ];
}

describe('TokenProber', () => {
  it('measures a clean token: no taxes, the buy’s gas, one simulation', async () => {
    const quoted = getAmountOut(ETH, pool.reserveNative, pool.reserveToken);
    const after = { token: pool.reserveToken - quoted, native: pool.reserveNative + ETH };
    const { prober, requests } = simulation([firstAnswer(quoted, getAmountOut(quoted, after.token, after.native), after)]);
    expect(await prober.probe(config, launch, 100n, pool, intent)).toEqual({ buyTax: 0n, sellTax: 0n, buyGas: 150_000n });
    expect(requests).toHaveLength(1);
    expect(requests[0]!.calls).toHaveLength(8);
  });

  it('finds a honeypot (the sale reverts) with a sell tax of null', async () => {
    const quoted = getAmountOut(ETH, pool.reserveNative, pool.reserveToken);
    const { prober } = simulation([firstAnswer(quoted, null)]);
    expect(await prober.probe(config, launch, 100n, pool, intent)).toMatchObject({ buyTax: 0n, sellTax: null });
  });

  it('with a buy tax, sells again what the buy really gave', async () => {
    const quoted = getAmountOut(ETH, pool.reserveNative, pool.reserveToken);
    const received = (quoted * 9n) / 10n;
    const after = { token: pool.reserveToken - quoted, native: pool.reserveNative + ETH };
    const second = [call(), call(), call({ result: hex(0n) }), call(), call({ result: hex(getAmountOut(received, after.token, after.native)) })];
    const { prober, requests } = simulation([firstAnswer(received, null, after), second]);
    const probe = await prober.probe(config, launch, 100n, pool, intent);
    expect(probe).toEqual({ buyTax: lossScaled(quoted, received), sellTax: 0n, buyGas: 150_000n });
    expect((probe as { buyTax: bigint }).buyTax).toBeGreaterThan(FRACTION_SCALE / 11n);
    expect(requests).toHaveLength(2);
  });

  it('behind a pending launch, probes on the state the launch leaves, with the wallet funded on top of it', async () => {
    const quoted = getAmountOut(ETH, pool.reserveNative, pool.reserveToken);
    const after = { token: pool.reserveToken - quoted, native: pool.reserveNative + ETH };
    const { prober, requests } = simulation([firstAnswer(quoted, getAmountOut(quoted, after.token, after.native), after)]);
    const stateAfter = {
      storage: { [launch.pair]: { '0x08': `0x${'1'.padStart(64, '0')}` } },
      accounts: { '0x00000000000000000000000000000000000000ee': { balance: '0x5' } },
    };
    const pending = { txHash: `0x${'ab'.repeat(32)}`, raw: '0x02', tokenReserve: pool.reserveToken, nativeReserve: pool.reserveNative, stateAfter };
    await prober.probe(config, { ...launch, pending }, 100n, pool, intent);
    const overrides = requests[0]!.overrides as { storage: unknown; accounts: Record<string, { balance: string }> };
    expect(overrides.storage).toEqual(stateAfter.storage);
    expect(overrides.accounts['0x00000000000000000000000000000000000000ee']).toEqual({ balance: '0x5' });
    expect(BigInt(overrides.accounts[intent.wallet.toLowerCase()]!.balance)).toBeGreaterThan(ETH);
  });

  it('reports a reverted buy with its reason', async () => {
    const answer = firstAnswer(0n, null);
    answer[1] = call({ status: 0, error: { type: 'revert', message: 'TRANSFER_FAILED' } });
    const { prober } = simulation([answer]);
    expect(await prober.probe(config, launch, 100n, pool, intent)).toEqual({ reverted: 'TRANSFER_FAILED' });
  });

  it('probes with the first intent that has something to buy after its fee', () => {
    const all = [
      { buyAmount: '100', feeBps: 10_000 },
      { buyAmount: '0', feeBps: null },
      { buyAmount: '100', feeBps: 100 },
    ];
    expect(probeIntent(all)).toBe(all[2]);
    expect(probeIntent([all[0]!])).toBeNull();
  });
});

describe('readProbeBehindLaunch', () => {
  const quoted = getAmountOut(ETH, pool.reserveNative, pool.reserveToken);
  const after = { token: pool.reserveToken - quoted, native: pool.reserveNative + ETH };
  /** The pair's Sync after the buy (token0 = TOKEN), beside another contract's log. */
  const sync = (pair = launch.pair) => ({ address: pair, topics: [id('Sync(uint112,uint112)')], data: `${hex(after.token)}${hex(after.native).slice(2)}` });
  /** The calls behind the launch: [before, buy, after, approve, wrapped before, sell, wrapped after]. */
  const behind = (buyLogs: SimulatedCall['logs'], gotNative: bigint | null, received = quoted) => [
    call({ result: hex(0n) }),
    call({ gasUsed: '0x249f0', logs: [{ address: TOKEN, topics: [id('Transfer(address,address,uint256)')], data: hex(received) }, ...buyLogs] }),
    call({ result: hex(received) }),
    call(),
    call({ result: hex(0n) }),
    call({ status: gotNative === null ? 0 : 1 }),
    call({ result: hex(gotNative ?? 0n) }),
  ];

  it('reads the same probe as a probe of its own would, with the pool after the buy from its Sync', () => {
    const clean = behind([sync()], getAmountOut(quoted, after.token, after.native));
    expect(readProbeBehindLaunch(clean, quoted, TOKEN, WRAPPED, launch.pair)).toEqual({ buyTax: 0n, sellTax: 0n, buyGas: 150_000n });
    // A 10 % sell tax against the quote on the pool the buy left.
    const got = (getAmountOut(quoted, after.token, after.native) * 9n) / 10n;
    expect(readProbeBehindLaunch(behind([sync()], got), quoted, TOKEN, WRAPPED, launch.pair)).toEqual({
      buyTax: 0n,
      sellTax: lossScaled(getAmountOut(quoted, after.token, after.native), got),
      buyGas: 150_000n,
    });
  });

  it('finds a honeypot, and a buy that reverted', () => {
    expect(readProbeBehindLaunch(behind([sync()], null), quoted, TOKEN, WRAPPED, launch.pair)).toMatchObject({ sellTax: null });
    const reverted = behind([], 0n);
    reverted[1] = call({ status: 0, error: { message: 'TRANSFER_FAILED' } } as Partial<SimulatedCall>);
    expect(readProbeBehindLaunch(reverted, quoted, TOKEN, WRAPPED, launch.pair)).toEqual({ reverted: 'TRANSFER_FAILED' });
  });

  it('gives up (the round probes again) without the Sync of that pair, or when a taxed buy needs a second sale', () => {
    expect(readProbeBehindLaunch(behind([sync('0x0000000000000000000000000000000000000b22')], 0n), quoted, TOKEN, WRAPPED, launch.pair)).toBeNull();
    const taxed = (quoted * 9n) / 10n;
    expect(readProbeBehindLaunch(behind([sync()], null, taxed), quoted, TOKEN, WRAPPED, launch.pair)).toBeNull();
    expect(readProbeBehindLaunch(behind([sync()], 0n).slice(0, 6), quoted, TOKEN, WRAPPED, launch.pair)).toBeNull();
  });
});
