// The body of PATCH /admin/users/:id (docs/admin-api.md) once its shape is checked
// (http/bodies/admin-user-body.ts): each role must be one a role name may be, and allowedRoles may come
// JSON-encoded, as the identity component stores it.
import type { ErrorIssue } from '../../errors/api-error.ts';
import type { UserChanges } from './user-directory.ts';
import { parseAllowedRolesInput, roleProblem } from './user-roles.ts';

/** The body as its schema accepts it. */
export interface UserChangesBody {
  primaryRole?: string;
  /** An array of role names, or the same array JSON-encoded. */
  allowedRoles?: string[] | string;
}

/** A pointer into the body. */
const pointerTo = (member: string): string => `/${member}`;

/** What the schema cannot say of the members it accepted. */
export function userChangesProblems(body: Partial<UserChangesBody>): ErrorIssue[] {
  const issues: ErrorIssue[] = [];
  if (body.primaryRole !== undefined) {
    const problem = roleProblem(body.primaryRole);
    if (problem) issues.push({ detail: `primaryRole: ${problem}`, pointer: pointerTo('primaryRole') });
  }
  if (body.allowedRoles !== undefined) {
    const parsed = parseAllowedRolesInput(body.allowedRoles);
    if ('problem' in parsed) issues.push({ detail: parsed.problem, pointer: pointerTo('allowedRoles') });
  }
  return issues;
}

/** The changes a checked body asks for (userChangesProblems found none). */
export function userChangesOf(body: UserChangesBody): UserChanges {
  const changes: UserChanges = {};
  if (body.primaryRole !== undefined) changes.primaryRole = body.primaryRole;
  if (body.allowedRoles !== undefined) {
    const parsed = parseAllowedRolesInput(body.allowedRoles);
    if ('roles' in parsed) changes.allowedRoles = parsed.roles;
  }
  return changes;
}
