// The bodies of `POST /admin/users` and `PATCH /admin/users/{id}` (docs/admin-api.md): checked here,
// shown as the OpenAPI document's `AdminUserCreateBody` and `AdminUserUpdateBody`.
import {
  type NewUserBody,
  USER_EMAIL_MAX_LENGTH,
  USER_PASSWORD_MAX_LENGTH,
} from '../../auth/identity/parse-new-user.ts';
import { USER_NAME_MAX_LENGTH, type UserChangesBody } from '../../auth/identity/parse-user-changes.ts';
import { MAX_ROLE_LENGTH } from '../../config/role-name.ts';
import type { JsonSchema } from '../../resources/field-types/index.ts';
import { RequestBody } from './request-body.ts';

export const roleSchema = (): JsonSchema => ({
  type: 'string',
  minLength: 1,
  maxLength: MAX_ROLE_LENGTH,
  pattern: '^\\S(.*\\S)?$',
});

const roleMembers = (): Record<string, JsonSchema> => ({
  primaryRole: roleSchema(),
  allowedRoles: {
    anyOf: [
      { type: 'array', items: roleSchema() },
      { type: 'string', description: 'The same array, JSON-encoded' },
    ],
  },
});

const nameSchema = (): JsonSchema => ({
  type: 'string',
  minLength: 1,
  maxLength: USER_NAME_MAX_LENGTH,
  description: 'Trimmed; must not be blank',
});

export function adminUserUpdateSchema(): JsonSchema {
  return {
    type: 'object',
    description:
      'The fields to change: roles, each a role the configuration defines (keys see the change on their next request), the name, and whether the email is verified.',
    properties: { ...roleMembers(), name: nameSchema(), emailVerified: { type: 'boolean' } },
    additionalProperties: false,
  };
}

export function adminUserCreateSchema(): JsonSchema {
  return {
    type: 'object',
    description:
      'The new user: a password, or invite: true to mail a link to choose one (not both); without either the account has no password until a reset link is used.',
    properties: {
      email: { type: 'string', minLength: 1, maxLength: USER_EMAIL_MAX_LENGTH, description: 'Trimmed' },
      name: nameSchema(),
      ...roleMembers(),
      emailVerified: { type: 'boolean', description: 'Default false' },
      password: { type: 'string', minLength: 1, maxLength: USER_PASSWORD_MAX_LENGTH, writeOnly: true },
      invite: { type: 'boolean', description: 'Mail the user a link to choose their password' },
    },
    required: ['email'],
    additionalProperties: false,
  };
}

/** An empty body changes nothing. */
export function adminUserUpdateBody(): RequestBody<UserChangesBody> {
  return new RequestBody<UserChangesBody>({
    name: 'AdminUserUpdateBody',
    schema: adminUserUpdateSchema(),
    absentIsEmpty: true,
  });
}

export function adminUserCreateBody(): RequestBody<NewUserBody> {
  return new RequestBody<NewUserBody>({ name: 'AdminUserCreateBody', schema: adminUserCreateSchema() });
}
