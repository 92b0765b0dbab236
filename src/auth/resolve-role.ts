// The role a key request acts as (docs/roles.md): the user's primaryRole, or the one named by
// X-Service-Role when it is the primary role or one of the user's allowedRoles and the configuration
// defines it (a stored allowed role whose definition was removed grants nothing).
import { ApiError } from '../errors/api-error.ts';
import type { CachedKeyOwner } from './keys/key-cache.ts';

/** `definedRoles` is asked only when a request switches roles, so the common request pays nothing for it. */
export function resolveRole(
  owner: CachedKeyOwner,
  requested: string | undefined,
  definedRoles: () => ReadonlySet<string>,
): string {
  const role = requested?.trim();
  if (!role || role === owner.primaryRole) return owner.primaryRole;
  if (owner.allowedRoles.includes(role) && definedRoles().has(role)) return role;
  throw new ApiError('FORBIDDEN', `This user may not act as role '${role}'`);
}
