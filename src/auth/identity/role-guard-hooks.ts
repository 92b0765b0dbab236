// The identity component's own guard on roles: whatever path writes a user (sign-up, social sign-in,
// its update endpoint, or our admin API and CLI through its adapter), a role the configuration does not
// define is refused. Sign-up cannot send roles at all; this holds even if that ever changed.
import type { BetterAuthOptions } from 'better-auth';
import { APIError } from 'better-auth/api';
import { userRoleIssues, type RolesToCheck } from './check-user-roles.ts';
import { decodeAllowedRoles } from './user-roles.ts';

type UserHooks = NonNullable<NonNullable<BetterAuthOptions['databaseHooks']>['user']>;

function rolesOf(user: Record<string, unknown>): RolesToCheck {
  const roles: RolesToCheck = {};
  if (typeof user.primaryRole === 'string') roles.primaryRole = user.primaryRole;
  if (typeof user.allowedRoles === 'string') roles.allowedRoles = decodeAllowedRoles(user.allowedRoles);
  return roles;
}

function guard(user: Record<string, unknown>, definedRoles: () => ReadonlySet<string>): void {
  const issues = userRoleIssues(rolesOf(user), definedRoles());
  if (issues.length > 0) {
    throw new APIError('BAD_REQUEST', {
      code: 'INVALID_RESOURCE_DATA',
      message: issues.map((issue) => issue.detail).join('; '),
    });
  }
}

export function roleGuardHooks(definedRoles: () => ReadonlySet<string>): UserHooks {
  return {
    create: { before: async (user) => guard(user, definedRoles) },
    update: { before: async (user) => guard(user, definedRoles) },
  };
}
