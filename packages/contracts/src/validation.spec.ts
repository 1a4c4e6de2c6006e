import { checksumAddress } from './validation.js';

describe('checksumAddress', () => {
  const checksummed = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

  it('gives the EIP-55 form of all-lowercase or all-uppercase hex, and of a valid checksum', () => {
    expect(checksumAddress(checksummed.toLowerCase())).toBe(checksummed);
    expect(checksumAddress(`0x${checksummed.slice(2).toUpperCase()}`)).toBe(checksummed);
    expect(checksumAddress(checksummed)).toBe(checksummed);
  });

  it('is null for mixed case that is not the checksum', () => {
    expect(checksumAddress('0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed')).toBeNull();
  });
});
