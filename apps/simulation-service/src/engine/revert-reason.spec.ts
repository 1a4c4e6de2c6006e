import { AbiCoder } from 'ethers';
import { decodeRevertReason } from './revert-reason.js';

const coder = AbiCoder.defaultAbiCoder();

describe('decodeRevertReason', () => {
  it('reads Error(string)', () => {
    expect(decodeRevertReason(`0x08c379a0${coder.encode(['string'], ['UniswapV2: K']).slice(2)}`)).toBe('UniswapV2: K');
  });

  it('names known panics and shows unknown codes', () => {
    expect(decodeRevertReason(`0x4e487b71${coder.encode(['uint256'], [0x12]).slice(2)}`)).toBe('Panic(0x12): division or modulo by zero');
    expect(decodeRevertReason(`0x4e487b71${coder.encode(['uint256'], [0x99]).slice(2)}`)).toBe('Panic(0x99)');
  });

  it('keeps custom errors and malformed data raw, and names an empty revert', () => {
    expect(decodeRevertReason('0xdeadbeef')).toBe('0xdeadbeef');
    expect(decodeRevertReason('0x08c379a0ff')).toBe('0x08c379a0ff');
    expect(decodeRevertReason('0x')).toBe('execution reverted');
  });
});
