import { AbiCoder } from 'ethers';
import { EVMError } from '@ethereumjs/evm';
import { SIMULATION_ERROR_TYPES } from '@tradeinfra/contracts';
import { callError, decodeRevertReason } from './revert-reason.js';

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

describe('callError', () => {
  it('types a revert by its data: Panic(uint256) is a panic, anything else a revert', () => {
    expect(callError('revert', `0x4e487b71${'0'.repeat(62)}12`)).toEqual({ type: 'panic', message: 'Panic(0x12): division or modulo by zero' });
    expect(callError('revert', '0x')).toEqual({ type: 'revert', message: 'execution reverted' });
    expect(callError('revert', '0xdeadbeef')).toEqual({ type: 'revert', message: '0xdeadbeef' });
  });

  it('maps every EVM halt to a type from the documented set, keeping the EVM’s text', () => {
    expect(callError('out of gas', '0x')).toEqual({ type: 'out_of_gas', message: 'out of gas' });
    expect(callError('invalid opcode', '0x')).toEqual({ type: 'invalid_opcode', message: 'invalid opcode' });
    expect(callError('stack underflow', '0x').type).toBe('stack_underflow');
    expect(callError('static state change', '0x').type).toBe('static_state_change');
    expect(callError('create collision', '0x').type).toBe('create_collision');
    expect(callError('code size to deposit exceeds maximum code size', '0x').type).toBe('code_size_exceeded');
    expect(callError('kzg proof invalid', '0x').type).toBe('precompile_error');
    for (const message of Object.values(EVMError.errorMessages)) {
      if (message === 'revert' || message === 'stop') continue;
      expect(SIMULATION_ERROR_TYPES).toContain(callError(message, '0x').type);
    }
  });
});
