// Whether a key principal resolved earlier still stands against the key and owner as stored now: what a
// long-lived request (a stream) checks when its key or user changes, instead of authenticating again.
import { isDeepStrictEqual } from 'node:util';
import type { CachedKeyOwner } from './keys/key-cache.ts';
import type { ApiKeyRecord } from './keys/api-key-record.ts';
import type { KeyPrincipal } from '../model/principal.ts';
import { resolveRole } from './resolve-role.ts';

export function principalStillValid(
  principal: KeyPrincipal,
  requestedRole: string | undefined,
  key: ApiKeyRecord | undefined,
  owner: CachedKeyOwner | undefined,
  definedRoles: () => ReadonlySet<string>,
  now = Date.now(),
): boolean {
  if (!key || !owner || !key.enabled || key.userId !== principal.userId) return false;
  if (key.expiresAt !== null && Date.parse(key.expiresAt) <= now) return false;
  // A new expiry or new scopes change what the request was granted: it must be resolved afresh.
  if ((key.expiresAt ?? undefined) !== principal.expiresAt) return false;
  if (!isDeepStrictEqual(key.permissions, principal.keyPermissions)) return false;
  try {
    return resolveRole(owner, requestedRole, definedRoles) === principal.role;
  } catch {
    return false;
  }
}
