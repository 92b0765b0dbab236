// The body of PATCH /admin/users/:id: flat `{ primaryRole?, allowedRoles?, name?, emailVerified? }` (docs/admin-api.md).
import { BodyReader } from '../validation/body-reader.ts';
import type { UserChanges } from './user-directory.ts';
import { parseAllowedRolesInput, roleProblem } from './user-roles.ts';

/** Bounds of a user's name, shared by the create and change bodies and their OpenAPI description. */
export const USER_NAME_MAX_LENGTH = 255;

/** Reads the role members into `changes`, recording each problem on the reader. */
export function readUserRoles(reader: BodyReader, changes: { primaryRole?: string; allowedRoles?: string[] }): void {
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
}

export function parseUserChanges(body: unknown): UserChanges {
  const reader = BodyReader.of(body);
  reader.rejectUnknown(['primaryRole', 'allowedRoles', 'name', 'emailVerified']);
  const changes: UserChanges = {};
  readUserRoles(reader, changes);
  const name = reader.string('name', { minLength: 1, maxLength: USER_NAME_MAX_LENGTH, trim: true });
  if (typeof name === 'string') changes.name = name;
  const emailVerified = reader.boolean('emailVerified');
  if (typeof emailVerified === 'boolean') changes.emailVerified = emailVerified;
  reader.throwIfInvalid();
  return changes;
}
