// The body of PATCH /admin/users/:id: flat `{ primaryRole?, allowedRoles? }` (docs/admin-api.md).
import { BodyReader } from '../validation/body-reader.ts';
import type { UserChanges } from './user-directory.ts';
import { parseAllowedRolesInput, roleProblem } from './user-roles.ts';

export function parseUserChanges(body: unknown): UserChanges {
  const reader = BodyReader.of(body);
  reader.rejectUnknown(['primaryRole', 'allowedRoles']);
  const changes: UserChanges = {};
  if (reader.has('primaryRole')) {
    const role = reader.raw('primaryRole');
    const problem = roleProblem(role);
    if (problem) reader.problem('primaryRole', `primaryRole: ${problem}`);
    else changes.primaryRole = role as string;
  }
  if (reader.has('allowedRoles')) {
    const parsed = parseAllowedRolesInput(reader.raw('allowedRoles'));
    if ('problem' in parsed) reader.problem('allowedRoles', parsed.problem);
    else changes.allowedRoles = parsed.roles;
  }
  reader.throwIfInvalid();
  return changes;
}
