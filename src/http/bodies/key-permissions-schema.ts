// `KeyPermissions`, the key scopes `/token`, `/me` and the admin API share: a component of the OpenAPI
// document, and what a token body's `permissions` is checked against.
import type { JsonSchema } from '../../resources/field-types/index.ts';

export function keyPermissionsSchema(): JsonSchema {
  const fieldList = (): JsonSchema => ({
    type: 'array',
    items: { type: 'string' },
    description: 'Field names; `"*"` for every field the role allows',
  });
  return {
    type: 'object',
    description:
      'Scoped permissions: resource → action → fields. Intersected with the role on every request; a resource or ' +
      'action left out is denied (403 `KEY_PERMISSION_DENIED`).',
    additionalProperties: {
      type: 'object',
      properties: { read: fieldList(), create: fieldList(), update: fieldList(), delete: fieldList() },
      additionalProperties: false,
    },
    examples: [{ posts: { read: ['title'], create: ['title', 'body'], update: ['*'], delete: [] } }],
  };
}
