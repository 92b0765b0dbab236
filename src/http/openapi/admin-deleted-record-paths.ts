// `GET /admin/resources/{name}/deleted`: a soft-delete resource's deleted records, which /v1 no longer shows;
// `POST …/deleted/{id}/restore` brings one back.
import type { JsonSchema } from '../../resources/field-types/index.ts';
import { adminOperation, offsetPageParameters, listDocument, pathParameter, timestamp } from './admin-operation.ts';
import type { OpenApiObject } from './openapi-refs.ts';

export const ADMIN_DELETED_RECORD_SCHEMAS = [
  'AdminDeletedRecord',
  'AdminDeletedRecordListDocument',
  'AdminRestoredRecordDocument',
] as const;
export const ADMIN_DELETED_RECORD_OPERATIONS = ['adminListDeletedRecords', 'adminRestoreDeletedRecord'] as const;

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
    AdminRestoredRecordDocument: {
      type: 'object',
      required: ['data'],
      properties: {
        data: {
          type: 'object',
          required: ['type', 'id', 'attributes', 'links'],
          properties: {
            type: { type: 'string', description: 'The resource name' },
            id: { type: 'string' },
            attributes: {
              type: 'object',
              description:
                "Every field of the restored record (the resource's own schema) but `deleted_at`, with a new `updated_at`.",
              required: ['created_at', 'updated_at'],
              properties: { created_at: timestamp(), updated_at: timestamp() },
            },
            links: {
              type: 'object',
              required: ['self'],
              properties: { self: { type: 'string', examples: ['/v1/posts/0190b5a2-7c1e-7d3a-9f00-3c5e2a1b4d6f'] } },
              additionalProperties: false,
            },
          },
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    },
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
        parameters: [pathParameter('name', 'Resource name.'), ...offsetPageParameters()],
        success: { status: 200, description: 'A page of deleted records.', schema: 'AdminDeletedRecordListDocument' },
        codes: ['INVALID_QUERY_PARAMS', 'RESOURCE_NOT_FOUND'],
      }),
    },
    '/admin/resources/{name}/deleted/{id}/restore': {
      post: adminOperation({
        operationId: 'adminRestoreDeletedRecord',
        summary: 'Restore a soft-deleted record',
        description:
          'Clears `deleted_at`, so the record is back in every `/v1` answer, and emits an `updated` event (streams, webhooks). ' +
          'Takes no body. 404 when the resource has no soft delete or no such record; 409 when the record is not deleted, ' +
          'or when a record it refers to was deleted since (one error per such relation field).',
        parameters: [pathParameter('name', 'Resource name.'), pathParameter('id', 'Record id.')],
        success: { status: 200, description: 'The restored record.', schema: 'AdminRestoredRecordDocument' },
        codes: ['INVALID_QUERY_PARAMS', 'RESOURCE_NOT_FOUND', 'CONFLICT', 'RESOURCE_UPDATE_ERROR'],
      }),
    },
  };
}
