// `GET /v1/<resource>/{id}/_history` (docs/records.md): a record's changes from the outbox, as the route
// in routes/record-history-routes.ts renders them; the entry schemas are shared by every resource.
import type { SvcConfig } from '../../config/config-types.ts';
import { RETENTION_DEFAULTS } from '../../config/config-schema.ts';
import type { ErrorCode } from '../../errors/error-catalogue.ts';
import type { JsonSchema } from '../../resources/field-types/index.ts';
import { HISTORY_DEFAULT_LIMIT, HISTORY_MAX_LIMIT } from '../routes/record-history-routes.ts';
import { offsetPageParameters, listDocument, timestamp } from './admin-operation.ts';
import { errorResponses } from './error-responses.ts';
import type { ResourceNames } from './openapi-names.ts';
import { JSON_API_MEDIA_TYPE, parameterRef, schemaRef, type OpenApiObject } from './openapi-refs.ts';
import { callerSecurity, successHeaders } from './shared-components.ts';

export const RECORD_HISTORY_SCHEMAS = ['RecordChange', 'RecordChangeListDocument'] as const;

function recordChange(): JsonSchema {
  const side = (text: string): JsonSchema => ({ description: text });
  return {
    type: 'object',
    required: ['type', 'id', 'attributes'],
    properties: {
      type: { type: 'string', const: 'record-changes' },
      id: { type: 'string', description: "The event's id (UUIDv7), as streams and webhooks carry it" },
      attributes: {
        type: 'object',
        required: ['resource', 'recordId', 'kind', 'at', 'actor', 'fields', 'changes'],
        properties: {
          resource: { type: 'string' },
          recordId: { type: 'string' },
          kind: { type: 'string', enum: ['created', 'updated', 'deleted'] },
          at: timestamp(),
          actor: {
            type: 'object',
            description: 'Who made the change: their user id (null for the admin token) and the role they acted as',
            required: ['userId', 'role'],
            properties: { userId: { type: ['string', 'null'] }, role: { type: 'string' } },
            additionalProperties: false,
          },
          fields: {
            type: 'array',
            items: { type: 'string' },
            description: 'The readable fields the change set, changed or removed; empty when no side was readable',
          },
          changes: {
            type: 'object',
            description:
              "Per field, its value before (`old`) and after (`new`); a side is present only when that version of the record was inside the caller's read filter",
            additionalProperties: {
              type: 'object',
              properties: { old: side('The value before the change'), new: side('The value after the change') },
              additionalProperties: false,
            },
          },
        },
        additionalProperties: false,
      },
    },
    additionalProperties: false,
  };
}

function recordChangeList(): JsonSchema {
  const list = listDocument('RecordChange');
  const properties = list.properties as Record<string, JsonSchema>;
  return {
    ...list,
    properties: {
      ...properties,
      meta: {
        type: 'object',
        required: ['total', 'retainedSince'],
        properties: {
          total: { type: 'integer', minimum: 0, description: 'Changes within the retention window' },
          retainedSince: {
            ...timestamp(),
            description: 'Older changes are no longer kept (`retention.events.maxAgeMs`) and not listed',
          },
        },
        additionalProperties: false,
      },
    },
  };
}

export function recordHistorySchemas(): Record<(typeof RECORD_HISTORY_SCHEMAS)[number], JsonSchema> {
  return { RecordChange: recordChange(), RecordChangeListDocument: recordChangeList() };
}

export function recordHistoryPath(
  name: string,
  names: ResourceNames,
  config: SvcConfig,
  codes: readonly ErrorCode[],
): Record<string, OpenApiObject> {
  const maxAgeMs = (config.retention ?? RETENTION_DEFAULTS).events.maxAgeMs;
  return {
    [`/v1/${name}/{id}/_history`]: {
      parameters: [parameterRef('RecordId'), parameterRef('ServiceRole')],
      get: {
        tags: [name],
        security: callerSecurity(config),
        operationId: names.operationId('history'),
        summary: `Changes of a ${name} record`,
        description:
          'Newest first, as the event outbox recorded them (who, when, which fields), within the retention window ' +
          `(now ${maxAgeMs} ms). The record must be one the caller may read now (else 404); only fields the caller may read ` +
          "are named, and a value before or after a change shows only when that version was inside the caller's read filter.",
        parameters: offsetPageParameters({
          items: 'Changes',
          defaultLimit: HISTORY_DEFAULT_LIMIT,
          maxLimit: HISTORY_MAX_LIMIT,
        }),
        responses: {
          '200': {
            description: 'A page of the record’s changes.',
            headers: successHeaders(),
            content: { [JSON_API_MEDIA_TYPE]: { schema: schemaRef('RecordChangeListDocument') } },
          },
          ...errorResponses(['INVALID_QUERY_PARAMS', 'RESOURCE_NOT_FOUND', ...codes]),
        },
      },
    },
  };
}
