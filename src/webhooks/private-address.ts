// Addresses a webhook must not reach unless private targets are allowed (CONTRACT 8): loopback, private,
// link-local, shared (CGNAT), unspecified, multicast and reserved ranges, IPv4 and IPv6.
import { BlockList, isIP } from 'node:net';

const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this" network, unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // shared address space (CGNAT)
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata endpoints
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // deprecated site-local
  ['ff00::', 8], // multicast
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv6');
}

/** Whether an IP address (v4 or v6; IPv4-mapped IPv6 is judged as IPv4) is private. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (BLOCKED.check(address, type)) return true;
  const embedded = nat64Embedded(address);
  return embedded !== null && BLOCKED.check(embedded, 'ipv4');
}

/** NAT64 (64:ff9b::/96) carries an IPv4 address in its last 32 bits, dotted or as two hex groups. */
function nat64Embedded(address: string): string | null {
  const dotted = /^64:ff9b::(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (dotted) return dotted[1]!;
  const hex = /^64:ff9b::([\da-f]{1,4}):([\da-f]{1,4})$/i.exec(address);
  if (!hex) return null;
  const high = parseInt(hex[1]!, 16);
  const low = parseInt(hex[2]!, 16);
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
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
