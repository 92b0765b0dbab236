// `GET /admin/roles`: the roles the configuration defines, the only ones `PATCH /admin/users/{id}` accepts.
import type { JsonSchema } from '../../resources/field-types/index.ts';
import { adminOperation, listDocument } from './admin-operation.ts';
import type { OpenApiObject } from './openapi-refs.ts';

export const ADMIN_ROLE_SCHEMAS = ['AdminRole', 'AdminRoleListDocument'] as const;
export const ADMIN_ROLE_OPERATIONS = ['adminListRoles'] as const;

export function adminRoleSchemas(): Record<(typeof ADMIN_ROLE_SCHEMAS)[number], JsonSchema> {
  return {
    AdminRole: {
      type: 'object',
      required: ['type', 'id', 'attributes'],
      properties: {
        type: { type: 'string', const: 'roles' },
        id: { type: 'string', description: 'The role name' },
        attributes: {
          type: 'object',
          required: ['default'],
          properties: {
            default: { type: 'boolean', description: 'Whether this is `auth.defaultRole`, given to new users' },
          },
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    },
    AdminRoleListDocument: listDocument('AdminRole'),
  };
}

export function adminRolePaths(): Record<string, OpenApiObject> {
  return {
    '/admin/roles': {
      get: adminOperation({
        operationId: 'adminListRoles',
        summary: 'List the defined roles',
        description:
          'The `roles:` list when the configuration declares one, else the roles named in resource permissions, with `auth.defaultRole`; sorted by name. ' +
          'These are the roles a user may be given.',
        success: { status: 200, description: 'Every defined role.', schema: 'AdminRoleListDocument' },
        codes: ['INVALID_QUERY_PARAMS'],
      }),
    },
  };
}
