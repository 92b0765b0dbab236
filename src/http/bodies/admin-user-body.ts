// The body of `PATCH /admin/users/{id}` (docs/admin-api.md): checked here, shown as the OpenAPI
// document's `AdminUserUpdateBody`.
import type { UserChangesBody } from '../../auth/identity/parse-user-changes.ts';
import { MAX_ROLE_LENGTH } from '../../config/role-name.ts';
import type { JsonSchema } from '../../resources/field-types/index.ts';
import { RequestBody } from './request-body.ts';

export const roleSchema = (): JsonSchema => ({
  type: 'string',
  minLength: 1,
  maxLength: MAX_ROLE_LENGTH,
  pattern: '^\\S(.*\\S)?$',
});

export function adminUserUpdateSchema(): JsonSchema {
  return {
    type: 'object',
    description:
      'The role fields to change, each a role the configuration defines; keys see the change on their next request.',
    properties: {
      primaryRole: roleSchema(),
      allowedRoles: {
        anyOf: [
          { type: 'array', items: roleSchema() },
          { type: 'string', description: 'The same array, JSON-encoded' },
        ],
      },
    },
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
