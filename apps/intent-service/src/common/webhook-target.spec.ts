import { networkInterfaces } from 'node:os';
import { addressRefusal, canonicalAddress, isPrivateAddress, localInterfaceAddresses } from './webhook-target.js';

/** No interface addresses: the tests below classify addresses only. */
const NONE = new Set<string>();
const refusal = (ip: string) => addressRefusal(ip, NONE);

describe('addressRefusal: the bypasses of the old prefix checks', () => {
  it.each<[string, RegExp]>([
    ['::ffff:127.0.0.1', /IPv4-mapped form of a loopback IPv4 address \(127\.0\.0\.1\)/],
    ['::ffff:7f00:1', /IPv4-mapped form of a loopback/],
    ['0:0:0:0:0:ffff:7f00:1', /IPv4-mapped form of a loopback/],
    ['::ffff:a9fe:a9fe', /IPv4-mapped form of a link-local IPv4 address \(169\.254\.169\.254\)/],
    ['::ffff:10.0.0.1', /IPv4-mapped form of a private IPv4 address/],
    ['febf::1', /link-local/],
    ['64:ff9b::7f00:1', /NAT64 form of a loopback IPv4 address \(127\.0\.0\.1\)/],
    ['2002:7f00:1::1', /6to4 form of a loopback IPv4 address \(127\.0\.0\.1\)/],
    ['::7f00:1', /IPv4-compatible/],
  ])('%s is refused (%s)', (ip, why) => {
    expect(refusal(ip)).toMatch(why);
  });
});

describe('addressRefusal: every range that is not public unicast', () => {
  it.each<[string, string]>([
    // IPv4
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified (0.0.0.0/8)'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['192.0.0.8', 'IETF protocol assignments'],
    ['192.0.2.1', 'documentation TEST-NET-1'],
    ['198.51.100.7', 'documentation TEST-NET-2'],
    ['203.0.113.9', 'documentation TEST-NET-3'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    // IPv6
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fe80::1', 'link-local'],
    ['fe80::fc:ff:fe00:1', 'link-local'],
    ['fea0::1', 'link-local (inside fe80::/10)'],
    ['fc00::1', 'unique-local'],
    ['fd00::2', 'unique-local'],
    ['fdff:ffff::1', 'unique-local'],
    ['fec0::1', 'site-local'],
    ['feff::1', 'site-local'],
    ['ff02::1', 'multicast'],
    ['ff0e::1', 'multicast'],
    ['100::1', 'discard-only'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['2001:2::1', 'benchmarking'],
    ['2001:10::1', 'ORCHID'],
    ['2001:20::1', 'ORCHIDv2'],
    ['64:ff9b:1::a00:1', 'local-use NAT64 (64:ff9b:1::/48)'],
    ['::ffff:0:7f00:1', 'IPv4-translated'],
    ['4000::1', 'outside 2000::/3'],
    ['5f00::1', 'segment routing'],
    // IPv4 inside IPv6 forms, embedded address not public
    ['::ffff:192.168.0.1', 'IPv4-mapped private'],
    ['::ffff:100.64.0.1', 'IPv4-mapped carrier-grade NAT'],
    ['::ffff:0.0.0.0', 'IPv4-mapped unspecified'],
    ['::ffff:255.255.255.255', 'IPv4-mapped broadcast'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 of the metadata address'],
    ['64:ff9b::10.0.0.1', 'NAT64 private'],
    ['2002:a00:1::1', '6to4 private'],
    ['2002:c0a8:101::1', '6to4 private'],
    ['2002:a9fe:a9fe::1', '6to4 metadata'],
    ['2001:0:7f00:1::ffff:ffff', 'Teredo with a loopback server'],
    ['2001:0:808:808:0:0:f5ff:fffe', 'Teredo with a private client (10.0.0.1, inverted)'],
    ['::a00:1', 'IPv4-compatible private'],
    ['::808:808', 'IPv4-compatible (deprecated), even of a public address'],
  ])('%s is refused (%s)', (ip) => {
    expect(refusal(ip)).not.toBeNull();
    expect(isPrivateAddress(ip, NONE)).toBe(true);
  });

  it.each<[string, string]>([
    ['8.8.8.8', 'public IPv4'],
    ['1.1.1.1', 'public IPv4'],
    ['172.32.0.1', 'just above 172.16/12'],
    ['100.128.0.1', 'just above 100.64/10'],
    ['198.20.0.1', 'just above 198.18/15'],
    ['2606:4700::1111', 'public IPv6'],
    ['2a00:1450:4001:80b::200e', 'public IPv6'],
    ['::ffff:8.8.8.8', 'IPv4-mapped public'],
    ['64:ff9b::808:808', 'NAT64 of a public address'],
    ['2002:808:808::1', '6to4 of a public address'],
    ['2001:0:808:808:0:0:f7f7:f7f7', 'Teredo, public server and client'],
  ])('%s is allowed (%s)', (ip) => {
    expect(refusal(ip)).toBeNull();
  });

  it('refuses what is not an address', () => {
    expect(refusal('example.com')).toBe('not an IP address');
    expect(refusal('')).toBe('not an IP address');
  });
});

describe('addressRefusal: the host’s own addresses', () => {
  it('refuses any address of this host, in any form, even a public one', () => {
    const local = new Set(['8.8.4.4', '2606:4700::1001'].map((a) => canonicalAddress(a)!));
    expect(addressRefusal('8.8.4.4', local)).toBe('an address of this host');
    expect(addressRefusal('::ffff:8.8.4.4', local)).toBe('an address of this host');
    expect(addressRefusal('64:ff9b::808:404', local)).toBe('an address of this host');
    expect(addressRefusal('2606:4700::1001', local)).toBe('an address of this host');
    expect(addressRefusal('8.8.8.8', local)).toBeNull();
  });

  it('reads every interface address of this machine', () => {
    const local = localInterfaceAddresses();
    const expected = Object.values(networkInterfaces())
      .flatMap((list) => list ?? [])
      .map((a) => a.address.split('%')[0]!);
    expect(expected.length).toBeGreaterThan(0);
    for (const address of expected) expect(local.has(canonicalAddress(address)!)).toBe(true);
    expect(local.has('127.0.0.1')).toBe(true);
    expect(local.has('8.8.8.8')).toBe(false);
  });
});
