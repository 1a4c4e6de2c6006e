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
