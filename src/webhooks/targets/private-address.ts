// Addresses a webhook must not reach unless private targets are allowed (docs/webhooks.md): loopback, private,
// link-local, shared (CGNAT), unspecified, multicast and reserved ranges, IPv4 and IPv6, and IPv4
// addresses carried inside IPv6 (mapped, translated, 6to4, NAT64) judged as the IPv4 address they carry.
import { BlockList, isIP } from 'node:net';

/** IPv4 ranges refused, as [network, prefix length]. */
const BLOCKED_IPV4: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], // "this" network, unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // shared address space (CGNAT)
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata endpoints
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation (TEST-NET-1)
  ['192.88.99.0', 24], // 6to4 relay anycast (deprecated)
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation (TEST-NET-2)
  ['203.0.113.0', 24], // documentation (TEST-NET-3)
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];

/** IPv6 ranges refused whole. */
const BLOCKED_IPV6: ReadonlyArray<readonly [string, number]> = [
  // Unspecified (::), loopback (::1) and the deprecated IPv4-compatible form (::a.b.c.d): nothing public
  // is reached this way, and some stacks hand ::127.0.0.1 to the IPv4 loopback.
  ['::', 96],
  ['64:ff9b:1::', 48], // local-use NAT64: the operator chooses how the IPv4 address is embedded
  ['100::', 64], // discard-only
  ['2001::', 32], // Teredo: the client's IPv4 address is obfuscated, so it cannot be judged
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // deprecated site-local
  ['ff00::', 8], // multicast
];

/**
 * IPv6 prefixes that carry an IPv4 address, and where: each blocked IPv4 range is refused inside them too.
 * IPv4-mapped (::ffff:0:0/96) needs no entry: BlockList already judges it as the IPv4 address.
 */
const EMBEDDING: ReadonlyArray<{ prefix: string; bits: number; embed: (octets: number[]) => string }> = [
  // 6to4 (2002::/16): the IPv4 address is bits 16-47.
  { prefix: '2002::', bits: 16, embed: ([a, b, c, d]) => `2002:${hex(a!, b!)}:${hex(c!, d!)}::` },
  // NAT64 well-known prefix (64:ff9b::/96): the last 32 bits.
  { prefix: '64:ff9b::', bits: 96, embed: (octets) => `64:ff9b::${octets.join('.')}` },
  // IPv4-translated (::ffff:0:0:0/96, SIIT): the last 32 bits.
  { prefix: '::ffff:0:0:0', bits: 96, embed: (octets) => `::ffff:0:${octets.join('.')}` },
];

function hex(high: number, low: number): string {
  return ((high << 8) | low).toString(16);
}

const BLOCKED = new BlockList();
for (const [network, prefix] of BLOCKED_IPV4) {
  BLOCKED.addSubnet(network, prefix, 'ipv4');
  const octets = network.split('.').map(Number);
  for (const { bits, embed } of EMBEDDING) BLOCKED.addSubnet(embed(octets), bits + prefix, 'ipv6');
}
for (const [network, prefix] of BLOCKED_IPV6) BLOCKED.addSubnet(network, prefix, 'ipv6');

/** Said with every refusal, so the reader learns which setting would allow the target. */
export const ALLOW_PRIVATE_HINT = 'set webhooks.allowPrivateTargets: true to allow them';

/** Whether an IP address (v4 or v6, IPv4 carried in IPv6 judged as that IPv4 address) is private. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return BLOCKED.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Why a URL's hostname is a private target on its face (an IP literal or a localhost name), or null.
 * Other names are checked against their resolved addresses when a delivery connects.
 */
export function privateHostProblem(hostname: string): string | null {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  const name = bare.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return `"${hostname}" is a loopback host`;
  if (isPrivateAddress(name)) return `${hostname} is a private, loopback or link-local address`;
  return null;
}
