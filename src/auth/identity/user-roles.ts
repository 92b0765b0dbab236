// Roles on a user (spec 2.3): `primaryRole`, and `allowedRoles`, a JSON-encoded array of the roles the
// user may switch to with X-Service-Role.

import { roleNameProblem } from '../../config/role-name.ts';

/** Reads a stored allowedRoles value; anything unreadable counts as "no extra roles", never as a grant. */
export function decodeAllowedRoles(stored: unknown): string[] {
  if (typeof stored !== 'string' || stored === '') return [];
  try {
    const parsed: unknown = JSON.parse(stored);
    return Array.isArray(parsed) ? parsed.filter((role): role is string => typeof role === 'string') : [];
  } catch {
    return [];
  }
}

export function encodeAllowedRoles(roles: readonly string[]): string {
  return JSON.stringify([...new Set(roles)]);
}

/** A problem with a role name, or undefined when it is usable. */
export const roleProblem = roleNameProblem;

/**
 * allowedRoles as the admin API and CLI accept it (docs/admin-api.md): an array of role names or the same
 * array JSON-encoded. Returns the roles, or a problem description.
 */
export function parseAllowedRolesInput(value: unknown): { roles: string[] } | { problem: string } {
  let candidate = value;
  if (typeof value === 'string') {
    try {
      candidate = JSON.parse(value);
    } catch {
      return { problem: 'allowedRoles must be an array of role names or a JSON-encoded array' };
    }
  }
  if (!Array.isArray(candidate))
    return { problem: 'allowedRoles must be an array of role names or a JSON-encoded array' };
  for (const role of candidate) {
    const problem = roleProblem(role);
    if (problem) return { problem: `allowedRoles: ${problem}` };
  }
  return { roles: [...new Set(candidate as string[])] };
}
