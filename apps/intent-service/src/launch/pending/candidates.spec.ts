import { AbiCoder, id } from 'ethers';
import { isLaunchCandidate, namesWatchedToken } from './candidates.js';

const TOKEN = '0x1111111111111111111111111111111111111111';
const OTHER = '0x2222222222222222222222222222222222222222';
const watch = { router: '0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', factory: '0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', tokens: new Set([TOKEN]) };
const call = (signature: string, types: string[], values: unknown[]) => id(signature).slice(0, 10) + AbiCoder.defaultAbiCoder().encode(types, values).slice(2);

describe('isLaunchCandidate', () => {
  it('takes transactions to the router, the factory or a watched token (openTrading), whatever their calldata', () => {
    expect(isLaunchCandidate({ to: watch.router, input: '0x' }, watch)).toBe(true);
    expect(isLaunchCandidate({ to: watch.factory.toUpperCase().replace('0X', '0x'), input: '0x' }, watch)).toBe(true);
    expect(isLaunchCandidate({ to: TOKEN, input: id('openTrading()').slice(0, 10) }, watch)).toBe(true);
  });

  it('takes a call elsewhere whose arguments name a watched token (a launcher contract), and not one that does not', () => {
    const launcher = '0x3333333333333333333333333333333333333333';
    const named = call('launch(address,uint256,address)', ['address', 'uint256', 'address'], [OTHER, 5n, TOKEN]);
    expect(isLaunchCandidate({ to: launcher, input: named }, watch)).toBe(true);
    const unnamed = call('launch(address,uint256,address)', ['address', 'uint256', 'address'], [OTHER, 5n, OTHER]);
    expect(isLaunchCandidate({ to: launcher, input: unnamed }, watch)).toBe(false);
  });

  it('ignores contract creations, plain transfers and everything when nothing is watched', () => {
    expect(isLaunchCandidate({ to: null, input: `0x6080${TOKEN.slice(2)}` }, watch)).toBe(false);
    expect(isLaunchCandidate({ to: OTHER, input: '0x' }, watch)).toBe(false);
    expect(isLaunchCandidate({ to: watch.router, input: '0x' }, { ...watch, tokens: new Set() })).toBe(false);
  });
});

describe('namesWatchedToken', () => {
  it('matches ABI words only: the address bytes inside another word, or a short tail, do not count', () => {
    const tokens = new Set([TOKEN]);
    const selector = '0x12345678';
    expect(namesWatchedToken(`${selector}${'0'.repeat(24)}${TOKEN.slice(2)}`, tokens)).toBe(true);
    // Not 12 zero bytes in front: a number that happens to end in the address.
    expect(namesWatchedToken(`${selector}${'f'.repeat(24)}${TOKEN.slice(2)}`, tokens)).toBe(false);
    // Misaligned by one byte.
    expect(namesWatchedToken(`${selector}00${'0'.repeat(24)}${TOKEN.slice(2)}`, tokens)).toBe(false);
    // Truncated calldata.
    expect(namesWatchedToken(`${selector}${'0'.repeat(24)}${TOKEN.slice(2, 30)}`, tokens)).toBe(false);
    // Upper-case hex is the same address.
    expect(namesWatchedToken(`${selector}${'0'.repeat(24)}${TOKEN.slice(2).toUpperCase()}`, tokens)).toBe(true);
  });
});
