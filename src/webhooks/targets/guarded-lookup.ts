// DNS lookup for deliveries that refuses names resolving to private addresses, so a public-looking
// name cannot be pointed at an internal service after the subscription was accepted (DNS rebinding).
import { lookup, type LookupAddress, type LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { ALLOW_PRIVATE_HINT, isPrivateAddress } from './private-address.ts';

export class PrivateTargetError extends Error {
  readonly code = 'ERR_PRIVATE_TARGET';

  constructor(hostname: string, address: string) {
    super(
      `${hostname} resolves to ${address}, a private, loopback or link-local address; private targets are not allowed (${ALLOW_PRIVATE_HINT})`,
    );
    this.name = 'PrivateTargetError';
  }
}

export const guardedLookup: LookupFunction = (hostname, options: LookupOptions, callback) => {
  lookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', undefined);
    const blocked = addresses.find((a) => isPrivateAddress(a.address));
    if (blocked) return callback(new PrivateTargetError(hostname, blocked.address), '', undefined);
    const first = addresses[0];
    if (!first)
      return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', undefined);
    if (options.all) return callback(null, addresses);
    return callback(null, first.address, first.family);
  });
};
