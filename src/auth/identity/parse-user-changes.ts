// The body of PATCH /admin/users/:id (docs/admin-api.md) once its shape is checked
// (http/bodies/admin-user-body.ts): each role must be one a role name may be, and allowedRoles may come
// JSON-encoded, as the identity component stores it.
import type { ErrorIssue } from '../../errors/api-error.ts';
import type { UserChanges } from './user-directory.ts';
import { parseAllowedRolesInput, roleProblem } from './user-roles.ts';

/** Bounds of a user's name, shared by the create and change bodies and their schemas. */
export const USER_NAME_MAX_LENGTH = 255;

/** The role members, as the create and change bodies' schemas accept them. */
export interface UserRolesBody {
  primaryRole?: string;
  /** An array of role names, or the same array JSON-encoded. */
  allowedRoles?: string[] | string;
}

/** The body as its schema accepts it. */
export interface UserChangesBody extends UserRolesBody {
  /** Trimmed before use. */
  name?: string;
  emailVerified?: boolean;
}

/** What the schema cannot say of the role members it accepted. */
export function userRolesProblems(body: Partial<UserRolesBody>): ErrorIssue[] {
  const issues: ErrorIssue[] = [];
  if (body.primaryRole !== undefined) {
    const problem = roleProblem(body.primaryRole);
    if (problem) issues.push({ detail: `primaryRole: ${problem}`, field: 'primaryRole' });
  }
  if (body.allowedRoles !== undefined) {
    const parsed = parseAllowedRolesInput(body.allowedRoles);
    if ('problem' in parsed) issues.push({ detail: parsed.problem, field: 'allowedRoles' });
  }
  return issues;
}

/** What the schema cannot say of the members it accepted. */
export function userChangesProblems(body: Partial<UserChangesBody>): ErrorIssue[] {
  const issues = userRolesProblems(body);
  // Trimmed before use, so blank is empty.
  if (typeof body.name === 'string' && body.name.trim() === '')
    issues.push({ detail: 'name must not be blank', field: 'name' });
  return issues;
}

/** The roles a checked body names (userRolesProblems found none). */
export function userRolesOf(body: UserRolesBody): { primaryRole?: string; allowedRoles?: string[] } {
  const roles: { primaryRole?: string; allowedRoles?: string[] } = {};
  if (body.primaryRole !== undefined) roles.primaryRole = body.primaryRole;
  if (body.allowedRoles !== undefined) {
    const parsed = parseAllowedRolesInput(body.allowedRoles);
    if ('roles' in parsed) roles.allowedRoles = parsed.roles;
  }
  return roles;
}

/** The changes a checked body asks for (userChangesProblems found none). */
export function userChangesOf(body: UserChangesBody): UserChanges {
  const changes: UserChanges = userRolesOf(body);
  if (body.name !== undefined) changes.name = body.name.trim();
  if (body.emailVerified !== undefined) changes.emailVerified = body.emailVerified;
  return changes;
}
