// `GET /admin/resources/{name}/deleted`: a soft-delete resource's deleted records, which /v1 no longer shows.
import type { JsonSchema } from '../../resources/field-types/index.ts';
import { adminOperation, adminPageParameters, listDocument, pathParameter, timestamp } from './admin-operation.ts';
import type { OpenApiObject } from './openapi-refs.ts';

export const ADMIN_DELETED_RECORD_SCHEMAS = ['AdminDeletedRecord', 'AdminDeletedRecordListDocument'] as const;
export const ADMIN_DELETED_RECORD_OPERATIONS = ['adminListDeletedRecords'] as const;

export function adminDeletedRecordSchemas(): Record<(typeof ADMIN_DELETED_RECORD_SCHEMAS)[number], JsonSchema> {
  return {
    AdminDeletedRecord: {
      type: 'object',
      required: ['type', 'id', 'attributes'],
      properties: {
        type: { type: 'string', description: 'The resource name' },
        id: { type: 'string' },
        attributes: {
          type: 'object',
          description:
            "Every field of the record as it was when deleted (the resource's own schema), with its timestamps.",
          required: ['created_at', 'updated_at', 'deleted_at'],
          properties: { created_at: timestamp(), updated_at: timestamp(), deleted_at: timestamp() },
        },
      },
      additionalProperties: false,
    },
    AdminDeletedRecordListDocument: listDocument('AdminDeletedRecord'),
  };
}

export function adminDeletedRecordPaths(): Record<string, OpenApiObject> {
  return {
    '/admin/resources/{name}/deleted': {
      get: adminOperation({
        operationId: 'adminListDeletedRecords',
        summary: "List a resource's soft-deleted records",
        description:
          'Most recently deleted first. Only for resources with `enableSoftDelete`; others answer 404. Deleted records stay out of every `/v1` answer.',
        parameters: [pathParameter('name', 'Resource name.'), ...adminPageParameters()],
        success: { status: 200, description: 'A page of deleted records.', schema: 'AdminDeletedRecordListDocument' },
        codes: ['INVALID_QUERY_PARAMS', 'RESOURCE_NOT_FOUND'],
      }),
    },
  };
}
