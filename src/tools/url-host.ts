// An address as a URL writes it: an IPv6 literal goes in brackets (http://[::1]:3000).
import { isIPv6 } from 'node:net';

export function urlHost(host: string): string {
  return isIPv6(host) ? `[${host}]` : host;
}
