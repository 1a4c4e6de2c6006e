import { bytesToHex } from '@ethereumjs/util';
import { keccak256Bytes } from '@tradeinfra/service-kit/plain';
import type { StateUpdate } from '@tradeinfra/contracts';
import { LRUCache } from 'lru-cache';
import { sameBytes, type AccountChange } from './forked-state-manager.js';

/** A quantity as the answers write it (0x hex, no leading zeros). */
export const hexOf = (n: bigint) => `0x${n.toString(16)}`;

/** EIP-55 forms (a keccak each), of the addresses answers name again and again. */
const checksums = new LRUCache<string, string>({ max: 50_000 });

/** The EIP-55 form of a lowercase address (cached). */
export function checksum(address: string): string {
  let out = checksums.get(address);
  if (out === undefined) checksums.set(address, (out = eip55(address)));
  return out;
}

/** EIP-55: a hex letter is upper case where the Keccak-256 of the lowercase hex has a nibble of 8 or more. */
function eip55(address: string): string {
  const hex = address.slice(2).toLowerCase();
  const hash = keccak256Bytes(Buffer.from(hex, 'ascii'));
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const nibble = i % 2 === 0 ? hash[i >> 1]! >> 4 : hash[i >> 1]! & 0x0f;
    out += nibble >= 8 ? hex[i]!.toUpperCase() : hex[i]!;
  }
  return out;
}

/** A call's changes in the overrides' shape (what a client sends back as overrides to continue from there). */
export function stateUpdate(changes: AccountChange[]): StateUpdate {
  const accounts: NonNullable<StateUpdate['accounts']> = {};
  const contractCodes: NonNullable<StateUpdate['contractCodes']> = {};
  const storage: NonNullable<StateUpdate['storage']> = {};
  for (const c of changes.sort((a, b) => (a.address < b.address ? -1 : 1))) {
    const address = checksum(c.address);
    const fields: { nonce?: number; balance?: string } = {};
    if (c.before.nonce !== c.after.nonce) fields.nonce = Number(c.after.nonce);
    if (c.before.balance !== c.after.balance) fields.balance = hexOf(c.after.balance);
    if (fields.nonce !== undefined || fields.balance !== undefined) accounts[address] = fields;
    if (!sameBytes(c.before.code, c.after.code)) contractCodes[address] = bytesToHex(c.after.code);
    if (c.storage.size > 0) {
      const slots: Record<string, string> = {};
      for (const slot of [...c.storage.keys()].sort()) slots[slot] = word32(c.storage.get(slot)![1]);
      storage[address] = slots;
    }
  }
  const update: StateUpdate = {};
  if (Object.keys(accounts).length) update.accounts = accounts;
  if (Object.keys(contractCodes).length) update.contractCodes = contractCodes;
  if (Object.keys(storage).length) update.storage = storage;
  return update;
}

function word32(value: Uint8Array): string {
  return `0x${Buffer.from(value).toString('hex').padStart(64, '0')}`;
}
