import { isIPv4, isIPv6 } from 'node:net';

/**
 * Which IP addresses Clarion may connect to for a URL a tenant chose: a webhook, a Web Push subscription's endpoint
 * (the SSRF policy, docs/design.md 2.6). Pure: no DNS, no sockets — the URL guard (outbound-url-guard.ts) resolves
 * names and asks this for every address. Everything that is not globally reachable unicast is refused: the tenant
 * chose the URL, and the request leaves from inside the operator's network.
 *
 * IPv6 addresses that embed an IPv4 address (IPv4-mapped ::ffff:a.b.c.d, IPv4-compatible ::a.b.c.d, NAT64
 * 64:ff9b::/96, 6to4 2002::/16) are judged by the IPv4 address they lead to, so `::ffff:127.0.0.1` is loopback.
 */
export type BlockedKind =
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'unique-local'
  | 'cgnat'
  | 'multicast'
  | 'unspecified'
  | 'metadata'
  | 'reserved';

export type AddressVerdict = { allowed: true } | { allowed: false; kind: BlockedKind; range: string };

const KIND_WORDS: Record<BlockedKind, string> = {
  loopback: 'a loopback address',
  private: 'a private address',
  'link-local': 'a link-local address',
  'unique-local': 'a unique-local address',
  cgnat: 'a carrier-grade NAT (shared) address',
  multicast: 'a multicast address',
  unspecified: 'an unspecified address',
  metadata: 'a cloud metadata address',
  reserved: 'a reserved address',
};

// Exact metadata addresses come first so they are named as such, not only as link-local.
const IPV4_RANGES: ReadonlyArray<readonly [string, BlockedKind]> = [
  ['169.254.169.254/32', 'metadata'], // AWS, GCP, Azure, DigitalOcean instance metadata
  ['169.254.170.2/32', 'metadata'], // AWS ECS task metadata
  ['100.100.100.200/32', 'metadata'], // Alibaba Cloud
  ['192.0.0.192/32', 'metadata'], // Oracle Cloud
  ['0.0.0.0/8', 'unspecified'], // "this network"; 0.0.0.0 reaches the local host on Linux
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'cgnat'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'reserved'], // IETF protocol assignments
  ['192.0.2.0/24', 'reserved'], // documentation (TEST-NET-1)
  ['192.88.99.0/24', 'reserved'], // 6to4 relay anycast (deprecated)
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'reserved'], // benchmarking
  ['198.51.100.0/24', 'reserved'], // documentation (TEST-NET-2)
  ['203.0.113.0/24', 'reserved'], // documentation (TEST-NET-3)
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'], // future use, and 255.255.255.255 broadcast
];

const IPV6_RANGES: ReadonlyArray<readonly [string, BlockedKind]> = [
  ['fd00:ec2::254/128', 'metadata'], // AWS instance metadata over IPv6
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['fe80::/10', 'link-local'],
  ['fc00::/7', 'unique-local'],
  ['fec0::/10', 'private'], // site-local (deprecated, still routable inside sites)
  ['ff00::/8', 'multicast'],
  ['100::/64', 'reserved'], // discard-only
  ['2001::/32', 'reserved'], // Teredo: tunnels to an IPv4 address we cannot see
  ['2001:db8::/32', 'reserved'], // documentation
  ['64:ff9b:1::/48', 'reserved'], // local-use NAT64
];

/** IPv6 prefixes whose addresses carry an IPv4 address, and where its 4 bytes sit. */
const EMBEDDED_IPV4: ReadonlyArray<{ prefix: string; offset: number }> = [
  { prefix: '::ffff:0:0/96', offset: 12 }, // IPv4-mapped
  { prefix: '::/96', offset: 12 }, // IPv4-compatible (deprecated); ::/128 and ::1/128 are matched above
  { prefix: '64:ff9b::/96', offset: 12 }, // NAT64 well-known prefix
  { prefix: '2002::/16', offset: 2 }, // 6to4
];

interface Range {
  bytes: Uint8Array;
  bits: number;
  text: string;
}

const parseRange = (text: string): Range => {
  const [address, bits] = text.split('/') as [string, string];
  return { bytes: parseIp(address)!, bits: Number(bits), text };
};
const ipv4Ranges = IPV4_RANGES.map(([text, kind]) => ({ range: parseRange(text), kind }));
const ipv6Ranges = IPV6_RANGES.map(([text, kind]) => ({ range: parseRange(text), kind }));
const embedded = EMBEDDED_IPV4.map(({ prefix, offset }) => ({ range: parseRange(prefix), offset }));

/** Judges one IP address (v4 or v6 text, brackets and zone id allowed). Anything unparseable is refused as reserved. */
export function classifyAddress(address: string): AddressVerdict {
  const bytes = parseIp(address);
  if (!bytes) return { allowed: false, kind: 'reserved', range: 'not an IP address' };
  return bytes.length === 4 ? classifyBytes(bytes, ipv4Ranges) : classifyIpv6(bytes);
}

/** "127.0.0.1 is a loopback address (127.0.0.0/8)", for error messages. */
export function describeRefusal(address: string, verdict: Exclude<AddressVerdict, { allowed: true }>): string {
  return `${address} is ${KIND_WORDS[verdict.kind]} (${verdict.range})`;
}

function classifyIpv6(bytes: Uint8Array): AddressVerdict {
  const direct = classifyBytes(bytes, ipv6Ranges);
  if (!direct.allowed) return direct;
  for (const { range, offset } of embedded) {
    if (inRange(bytes, range)) return classifyBytes(bytes.subarray(offset, offset + 4), ipv4Ranges);
  }
  return { allowed: true };
}

function classifyBytes(bytes: Uint8Array, ranges: ReadonlyArray<{ range: Range; kind: BlockedKind }>): AddressVerdict {
  for (const { range, kind } of ranges) {
    if (inRange(bytes, range)) return { allowed: false, kind, range: range.text };
  }
  return { allowed: true };
}

function inRange(bytes: Uint8Array, range: Range): boolean {
  if (bytes.length !== range.bytes.length) return false;
  for (let bit = 0; bit < range.bits; bit += 8) {
    const width = Math.min(8, range.bits - bit);
    const mask = (0xff << (8 - width)) & 0xff;
    const index = bit / 8;
    if ((bytes[index]! & mask) !== (range.bytes[index]! & mask)) return false;
  }
  return true;
}

/** 4 bytes for IPv4, 16 for IPv6 (including a dotted IPv4 tail), or null. */
export function parseIp(text: string): Uint8Array | null {
  const address = text.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  if (isIPv4(address)) return Uint8Array.from(address.split('.').map(Number));
  if (!isIPv6(address)) return null;
  let head = address;
  const tail: number[] = [];
  const dotted = /:(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    tail.push((a << 8) | b, (c << 8) | d);
    // Keep a "::" that precedes the dotted part; drop a single ":" separator.
    head = address.slice(0, dotted.index + 1);
    if (!head.endsWith('::')) head = head.slice(0, -1);
  }
  const [left, right] = head.includes('::') ? (head.split('::') as [string, string]) : [head, null];
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16)));
  const leftGroups = groups(left);
  const rightGroups = right === null ? [] : groups(right);
  const missing = 8 - leftGroups.length - rightGroups.length - tail.length;
  const all = [...leftGroups, ...Array<number>(right === null ? 0 : missing).fill(0), ...rightGroups, ...tail];
  if (all.length !== 8) return null;
  const bytes = new Uint8Array(16);
  all.forEach((group, index) => {
    bytes[index * 2] = group >> 8;
    bytes[index * 2 + 1] = group & 0xff;
  });
  return bytes;
}
