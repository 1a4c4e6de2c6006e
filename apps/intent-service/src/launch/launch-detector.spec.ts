import { createdPairs, launchesFromMints, MINT_TOPIC, PAIR_CREATED_TOPIC, type Launch, type RpcLog } from './launch-detector.js';

const WRAPPED = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2';
const TOKEN = '0x00000000000000000000000000000000000000aa';
const OTHER = '0x00000000000000000000000000000000000000bb';
const PAIR = '0x000000000000000000000000000000000000a111';
const topic = (address: string) => `0x${address.slice(2).padStart(64, '0')}`;
const log = (over: Partial<RpcLog>): RpcLog => ({
  address: PAIR,
  topics: [MINT_TOPIC],
  data: '0x',
  blockNumber: '0x10',
  blockHash: '0xh10',
  logIndex: '0x0',
  ...over,
});
const created = (t0: string, t1: string, pair: string) =>
  log({ address: '0xfactory', topics: [PAIR_CREATED_TOPIC, topic(t0), topic(t1)], data: `${topic(pair)}${'0'.repeat(63)}1` });

describe('createdPairs', () => {
  it('keeps pairs of a token with the wrapped native token, on either side, and drops the others', () => {
    expect(
      createdPairs(
        [created(TOKEN, WRAPPED, PAIR), created(WRAPPED, OTHER, '0x000000000000000000000000000000000000b222'), created(TOKEN, OTHER, '0x0c')],
        WRAPPED,
      ),
    ).toEqual([
      { token: TOKEN, pair: PAIR },
      { token: OTHER, pair: '0x000000000000000000000000000000000000b222' },
    ]);
  });
});

describe('launchesFromMints', () => {
  const pairs = new Map([[PAIR, TOKEN]]);

  it('takes a watched pair’s first mint in block and log order', () => {
    const mints = [
      log({ blockNumber: '0x12', blockHash: '0xh12', logIndex: '0x0', transactionHash: '0xT3' }),
      log({ blockNumber: '0x11', blockHash: '0xh11', logIndex: '0x5', transactionHash: '0xT2' }),
      log({ blockNumber: '0x11', blockHash: '0xh11', logIndex: '0x2', address: PAIR.toUpperCase().replace('0X', '0x'), transactionHash: '0xT1' }),
    ];
    // The launch transaction is the first mint's (its hash lowercase, as the intent record shows it).
    expect(launchesFromMints(mints, pairs)).toEqual([{ token: TOKEN, pair: PAIR, blockNumber: 0x11n, blockHash: '0xh11', txHash: '0xt1' }]);
  });

  it('ignores mints of pairs not watched, and keeps a pair that launched before the range', () => {
    const before: Launch = { token: TOKEN, pair: PAIR, blockNumber: 0xfn, blockHash: '0xhf', txHash: null };
    expect(launchesFromMints([log({ address: '0x000000000000000000000000000000000000dead' })], pairs)).toEqual([]);
    expect(launchesFromMints([log({})], pairs, new Map([[PAIR, before]]))).toEqual([before]);
  });
});
