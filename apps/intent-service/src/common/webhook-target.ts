import { networkInterfaces } from 'node:os';
import ipaddr from 'ipaddr.js';

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

/** A webhook the service refuses to call (scheme or address not allowed). */
export class WebhookRefused extends Error {
  override readonly name = 'WebhookRefused';
}

/** What ipaddr.js calls a range, in words. */
const RANGE_WORDS: Record<string, string> = {
  unspecified: 'an unspecified',
  broadcast: 'a broadcast',
  multicast: 'a multicast',
  linkLocal: 'a link-local',
  loopback: 'a loopback',
  carrierGradeNat: 'a carrier-grade NAT',
  private: 'a private',
  reserved: 'a reserved (documentation, benchmarking or future use)',
  benchmarking: 'a benchmarking',
  amt: 'an AMT relay',
  as112: 'an AS112',
  as112v6: 'an AS112',
  uniqueLocal: 'a unique-local',
  deprecatedSiteLocal: 'a site-local',
  discard: 'a discard-only',
  rfc6145: 'an IPv4-translated',
  rfc6052: 'a NAT64',
  deprecatedOrchid: 'an ORCHID',
  orchid2: 'an ORCHIDv2',
  droneRemoteIdProtocolEntityTags: 'a DRIP',
  segmentRouting: 'a segment-routing',
};

/** 2000::/3: the only IPv6 space handed out as global unicast. */
const GLOBAL_UNICAST_V6: [IPv6, number] = [ipaddr.IPv6.parse('2000::'), 3];
/** 64:ff9b::/96, RFC 6052's well-known NAT64 prefix: the last 32 bits are the IPv4 address. */
const NAT64_WELL_KNOWN: [IPv6, number] = [ipaddr.IPv6.parse('64:ff9b::'), 96];

function v4(hi: number, lo: number): IPv4 {
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}

/** Why an IPv4 address is not a public unicast one, or null when it is. */
function refusalOfV4(addr: IPv4): string | null {
  const range = addr.range();
  return range === 'unicast' ? null : `${RANGE_WORDS[range] ?? `a ${range}`} address`;
}

/** The IPv4 address an IPv6 form carries, with the form's name (null when it carries none). */
function embeddedV4(addr: IPv6): { form: string; inner: IPv4[] } | null {
  const p = addr.parts;
  switch (addr.range()) {
    case 'ipv4Mapped':
      return { form: 'IPv4-mapped', inner: [addr.toIPv4Address()] };
    case '6to4':
      return { form: '6to4', inner: [v4(p[1]!, p[2]!)] };
    case 'teredo':
      // 2001:0:<server v4>:<flags>:<port>:<client v4, inverted>
      return { form: 'Teredo', inner: [v4(p[2]!, p[3]!), v4(~p[6]! & 0xffff, ~p[7]! & 0xffff)] };
    default:
      if (addr.match(NAT64_WELL_KNOWN)) return { form: 'NAT64', inner: [v4(p[6]!, p[7]!)] };
      return null;
  }
}

/** Why an IPv6 address is not a public unicast one, or null when it is. */
function refusalOfV6(addr: IPv6): string | null {
  const embedded = embeddedV4(addr);
  if (embedded) {
    for (const inner of embedded.inner) {
      const why = refusalOfV4(inner);
      if (why) return `an ${embedded.form} form of ${why.replace(/ address$/, '')} IPv4 address (${inner.toString()})`;
    }
    return null;
  }
  if (addr.parts.slice(0, 6).every((part) => part === 0) && addr.range() === 'unicast') {
    return 'an IPv4-compatible address (deprecated, never public)';
  }
  const range = addr.range();
  if (range !== 'unicast') return `${RANGE_WORDS[range] ?? `a ${range}`} address`;
  if (!addr.match(GLOBAL_UNICAST_V6)) return 'not a global unicast address (outside 2000::/3)';
  return null;
}

/** The address as one canonical string (an IPv4-mapped IPv6 address as its IPv4 address). */
function canonical(addr: IPv4 | IPv6): string {
  if (addr.kind() === 'ipv6' && (addr as IPv6).isIPv4MappedAddress()) return (addr as IPv6).toIPv4Address().toString();
  return addr.kind() === 'ipv4' ? addr.toString() : (addr as IPv6).toNormalizedString();
}

/** `ip` in the form `localInterfaceAddresses` holds (null when it is not an address). */
export function canonicalAddress(ip: string): string | null {
  try {
    return canonical(ipaddr.parse(ip.split('%')[0]!));
  } catch {
    return null;
  }
}

/** Every address of this host's network interfaces, canonical. */
export function localInterfaceAddresses(): Set<string> {
  const out = new Set<string>();
  for (const list of Object.values(networkInterfaces())) {
    for (const entry of list ?? []) {
      const address = canonicalAddress(entry.address);
      if (address) out.add(address);
    }
  }
  return out;
}

/**
 * Why a webhook may not connect to `ip`, or null when it may: only public unicast addresses pass,
 * and none of this host's own interfaces (`local`). The refused ranges, IPv6 forms that embed an
 * IPv4 address included, are listed in docs/design/webhooks.md.
 */
export function addressRefusal(ip: string, local: ReadonlySet<string> = localInterfaceAddresses()): string | null {
  let addr: IPv4 | IPv6;
  try {
    addr = ipaddr.parse(ip);
  } catch {
    return 'not an IP address';
  }
  const why = addr.kind() === 'ipv4' ? refusalOfV4(addr as IPv4) : refusalOfV6(addr as IPv6);
  if (why) return why;
  const embedded = addr.kind() === 'ipv6' ? (embeddedV4(addr as IPv6)?.inner ?? []) : [];
  if ([addr, ...embedded].some((a) => local.has(canonical(a)))) return 'an address of this host';
  return null;
}

/** True when `ip` is anything but a public unicast address of another host. */
export function isPrivateAddress(ip: string, local?: ReadonlySet<string>): boolean {
  return addressRefusal(ip, local) !== null;
}

export interface WebhookPolicy {
  WEBHOOK_ALLOW_HTTP: boolean;
  WEBHOOK_ALLOW_PRIVATE: boolean;
}
