// The body of POST /admin/users (docs/admin-api.md) once its shape is checked
// (http/bodies/admin-user-body.ts): who the user is, their roles, and either a password or
// `invite: true` (a mailed link to choose one); neither leaves the account without a password.
import type { ErrorIssue } from '../../errors/api-error.ts';
import { type UserRolesBody, userRolesOf, userRolesProblems } from './parse-user-changes.ts';
import type { NewUser } from './user-directory.ts';

/** The longest address accepted, as at POST /token. */
export const USER_EMAIL_MAX_LENGTH = 320;
/** Bounds the hashing cost; better-auth's own limits (minimum 8, maximum 128 by default) then apply. */
export const USER_PASSWORD_MAX_LENGTH = 1024;

/** The body as its schema accepts it. */
export interface NewUserBody extends UserRolesBody {
  /** Trimmed before use, as is name. */
  email: string;
  name?: string;
  password?: string;
  invite?: boolean;
  emailVerified?: boolean;
}

export interface NewUserRequest {
  user: NewUser;
  /** Mail the user a link to choose their password. */
  invite: boolean;
}

/** What the schema cannot say of the members it accepted. */
export function newUserProblems(body: Partial<NewUserBody>): ErrorIssue[] {
  const issues = userRolesProblems(body);
  for (const member of ['email', 'name'] as const) {
    const value = body[member];
    if (typeof value === 'string' && value.trim() === '')
      issues.push({ detail: `${member} must not be blank`, field: member });
  }
  if (body.invite === true && typeof body.password === 'string')
    issues.push({
      detail: 'Send a password or invite: true, not both (the invitation is a link to choose one)',
      field: 'invite',
    });
  return issues;
}

/** The user a checked body asks for (newUserProblems found none). */
export function newUserOf(body: NewUserBody): NewUserRequest {
  const roles = userRolesOf(body);
  const user: NewUser = {
    email: body.email.trim(),
    verified: body.emailVerified === true,
    ...(body.name !== undefined ? { name: body.name.trim() } : {}),
    ...(body.password !== undefined ? { password: body.password } : {}),
    ...(roles.primaryRole !== undefined ? { role: roles.primaryRole } : {}),
    ...(roles.allowedRoles !== undefined ? { allowedRoles: roles.allowedRoles } : {}),
  };
  return { user, invite: body.invite === true };
}
