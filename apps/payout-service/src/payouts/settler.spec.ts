import { decide, toUnits } from './settler.js';

describe('toUnits', () => {
  it('turns a decimal amount into the smallest unit exactly', () => {
    expect(toUnits('0.001', 18)).toBe(10n ** 15n);
    expect(toUnits('1', 6)).toBe(1_000_000n);
    expect(toUnits('123456789.123456', 6)).toBe(123_456_789_123_456n);
    expect(toUnits('0.123456789012345678', 18)).toBe(123_456_789_012_345_678n);
    expect(toUnits('5.10', 1)).toBe(51n);
    expect(toUnits('0', 18)).toBe(0n);
  });

  it('refuses more decimals than the asset has, and anything not a decimal', () => {
    expect(() => toUnits('0.0000001', 6)).toThrow(/more than 6 decimals/);
    for (const bad of ['-1', '1e3', '', '0x10', '1.']) expect(() => toUnits(bad, 18)).toThrow(RangeError);
  });
});

describe('decide', () => {
  const base = {
    receipt: null,
    head: 100n,
    confirmations: 2,
    nonce: 7n,
    minedNonce: 7n,
    sentAt: new Date('2026-11-23T10:00:00Z'),
    now: new Date('2026-11-23T10:01:00Z'),
    deadlineSeconds: 600,
  };

  it('pays a mined, successful transfer once it is deep enough, and fails a reverted one', () => {
    expect(decide({ ...base, receipt: { status: '0x1', blockNumber: '0x64' }, minedNonce: 8n })).toBe('wait'); // 1 confirmation of 2
    expect(decide({ ...base, receipt: { status: '0x1', blockNumber: '0x63' }, minedNonce: 8n })).toBe('paid');
    expect(decide({ ...base, receipt: { status: '0x0', blockNumber: '0x63' }, minedNonce: 8n })).toBe('failed');
    expect(decide({ ...base, receipt: { status: '0x0', blockNumber: '0x64' }, minedNonce: 8n })).toBe('wait');
  });

  it('sends the same transaction again while it waits, replaces it past the deadline, and fails it once its nonce is taken', () => {
    expect(decide(base)).toBe('resend');
    expect(decide({ ...base, now: new Date('2026-11-23T10:10:01Z') })).toBe('replace');
    expect(decide({ ...base, minedNonce: 8n })).toBe('failed');
    expect(decide({ ...base, minedNonce: 8n, now: new Date('2026-11-23T12:00:00Z') })).toBe('failed');
  });
});
