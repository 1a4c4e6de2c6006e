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

  it('answers the same the second time (remembered answers), and past the 10,000 it remembers', () => {
    const bad = '0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
    for (let round = 0; round < 2; round++) {
      expect(checksumAddress(checksummed.toLowerCase())).toBe(checksummed);
      expect(checksumAddress(checksummed)).toBe(checksummed);
      expect(checksumAddress(bad)).toBeNull();
    }
    for (let i = 0; i < 10_050; i++) checksumAddress(`0x${i.toString(16).padStart(40, '0')}`);
    expect(checksumAddress(checksummed.toLowerCase())).toBe(checksummed);
    expect(checksumAddress(bad)).toBeNull();
    expect(checksumAddress(`0x${(10_049).toString(16).padStart(40, '0')}`)).toBe(`0x${(10_049).toString(16).padStart(40, '0')}`);
  });
});
