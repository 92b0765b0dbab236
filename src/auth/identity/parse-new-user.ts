// The body of POST /admin/users (docs/admin-api.md): who the user is, their roles, and either a password
// or `invite: true` (a mailed link to choose one); neither leaves the account without a password.
import { BodyReader } from '../validation/body-reader.ts';
import { readUserRoles, USER_NAME_MAX_LENGTH } from './parse-user-changes.ts';
import type { NewUser } from './user-directory.ts';

/** The longest address accepted, as at POST /token. */
export const USER_EMAIL_MAX_LENGTH = 320;
/** Bounds the hashing cost; better-auth's own limits (minimum 8, maximum 128 by default) then apply. */
export const USER_PASSWORD_MAX_LENGTH = 1024;

export interface NewUserRequest {
  user: NewUser;
  /** Mail the user a link to choose their password. */
  invite: boolean;
}

export function parseNewUser(body: unknown): NewUserRequest {
  const reader = BodyReader.of(body);
  reader.rejectUnknown(['email', 'name', 'primaryRole', 'allowedRoles', 'emailVerified', 'password', 'invite']);
  const email = reader.required('email')
    ? reader.string('email', { minLength: 1, maxLength: USER_EMAIL_MAX_LENGTH, trim: true })
    : undefined;
  const name = reader.string('name', { minLength: 1, maxLength: USER_NAME_MAX_LENGTH, trim: true });
  const password = reader.string('password', { minLength: 1, maxLength: USER_PASSWORD_MAX_LENGTH });
  const invite = reader.boolean('invite') === true;
  const verified = reader.boolean('emailVerified') === true;
  const roles: { primaryRole?: string; allowedRoles?: string[] } = {};
  readUserRoles(reader, roles);
  if (invite && typeof password === 'string')
    reader.problem('invite', 'Send a password or invite: true, not both (the invitation is a link to choose one)');
  reader.throwIfInvalid();
  const user: NewUser = {
    email: email as string,
    verified,
    ...(typeof name === 'string' ? { name } : {}),
    ...(typeof password === 'string' ? { password } : {}),
    ...(roles.primaryRole !== undefined ? { role: roles.primaryRole } : {}),
    ...(roles.allowedRoles !== undefined ? { allowedRoles: roles.allowedRoles } : {}),
  };
  return { user, invite };
}
