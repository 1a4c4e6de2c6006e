import type { SimulatedCallError, SimulationErrorType } from '@tradeinfra/contracts';
import { AbiCoder } from 'ethers';

const ERROR_SELECTOR = '0x08c379a0';
const PANIC_SELECTOR = '0x4e487b71';

const PANICS: Record<number, string> = {
  0x00: 'generic compiler panic',
  0x01: 'assertion failed',
  0x11: 'arithmetic overflow or underflow',
  0x12: 'division or modulo by zero',
  0x21: 'invalid enum value',
  0x22: 'invalid storage byte array encoding',
  0x31: 'pop on an empty array',
  0x32: 'array index out of bounds',
  0x41: 'out of memory',
  0x51: 'call to an uninitialised function',
};

/**
 * A revert's reason for people: `Error(string)` → the string; `Panic(uint256)` →
 * `Panic(0x11): arithmetic overflow or underflow`; empty → `execution reverted`; anything
 * else (custom errors) → the raw hex.
 */
export function decodeRevertReason(data: string): string {
  if (data === '0x' || data === '') return 'execution reverted';
  const coder = AbiCoder.defaultAbiCoder();
  try {
    if (data.startsWith(ERROR_SELECTOR)) return String(coder.decode(['string'], `0x${data.slice(10)}`)[0]);
    if (data.startsWith(PANIC_SELECTOR)) {
      const code = coder.decode(['uint256'], `0x${data.slice(10)}`)[0] as bigint;
      const known = code <= 0xffn ? PANICS[Number(code)] : undefined;
      return `Panic(0x${code.toString(16)})${known ? `: ${known}` : ''}`;
    }
  } catch {
    // not well-formed: fall through to the raw data
  }
  return data;
}

/** The `{type, message}` of a failed call, from the EVM's error and the call's return data. */
export function callError(evmError: string, returnData: string): SimulatedCallError {
  if (evmError === 'revert') {
    const message = decodeRevertReason(returnData);
    return { type: returnData.startsWith(PANIC_SELECTOR) && message.startsWith('Panic(') ? 'panic' : 'revert', message };
  }
  return { type: EVM_ERROR_TYPES[evmError] ?? (PRECOMPILE_ERRORS.has(evmError) ? 'precompile_error' : 'internal'), message: evmError };
}

/** ethereumjs's EVM error texts (EVMError.errorMessages) by the type a client sees. */
const EVM_ERROR_TYPES: Record<string, SimulationErrorType> = {
  'out of gas': 'out_of_gas',
  'code store out of gas': 'out_of_gas',
  'code size to deposit exceeds maximum code size': 'code_size_exceeded',
  'stack underflow': 'stack_underflow',
  'stack overflow': 'stack_overflow',
  'invalid JUMP': 'invalid_jump',
  'invalid opcode': 'invalid_opcode',
  'value out of range': 'out_of_bounds',
  'static state change': 'static_state_change',
  'create collision': 'create_collision',
  'insufficient balance': 'insufficient_balance',
  'invalid bytecode deployed': 'invalid_code',
  'invalid EOF format': 'invalid_code',
  'initcode exceeds max initcode size': 'initcode_size_exceeded',
  'internal error': 'internal',
  'refund exhausted': 'internal',
  'value overflow': 'internal',
};

/** Errors a precompile ends with (bad input to BLS12-381, BN254, KZG, …). */
const PRECOMPILE_ERRORS = new Set([
  'invalid input length',
  'point not on curve',
  'input is empty',
  'fp point not in field',
  'kzg commitment does not match versioned hash',
  'kzg inputs invalid',
  'kzg proof invalid',
]);
