// Building blocks of the admin operations: the admin-token security, JSON:API success responses,
// id and paging parameters, and the error codes every admin route can answer with.
import { ADMIN_DEFAULT_LIMIT, ADMIN_MAX_LIMIT } from '../routes/parse-admin-page.ts';
import type { ErrorCode } from '../../errors/error-catalogue.ts';
import type { JsonSchema } from '../../resources/field-types/index.ts';
import { ADMIN_SCHEME, ADMIN_TAG } from './admin-resource-paths.ts';
import { BODY_CODES, errorResponses } from './error-responses.ts';
import { headerRef, JSON_API_MEDIA_TYPE, jsonRequestBody, schemaRef, type OpenApiObject } from './openapi-refs.ts';

/** The admin guard (401/403), JSON:API Accept negotiation (406) and the unexpected failure (500). */
const GUARDED: readonly ErrorCode[] = [
  'UNAUTHORIZED',
  'INVALID_API_KEY',
  'FORBIDDEN',
  'NOT_ACCEPTABLE',
  'INTERNAL_ERROR',
];

export interface AdminOperationSpec {
  operationId: string;
  summary: string;
  /** Required: every operation says what it does beyond its summary (Spectral's `operation-description`). */
  description: string;
  parameters?: OpenApiObject[];
  /** Component schema name of a JSON body; adds the body error codes. */
  body?: { schema: string; description: string };
  /** Success status and the component schema of its document; no schema: an empty answer (204). */
  success: { status: number; description: string; schema?: string; location?: boolean };
  codes: readonly ErrorCode[];
}

export function adminOperation(spec: AdminOperationSpec): OpenApiObject {
  const headers: OpenApiObject = { 'X-Request-Id': headerRef('XRequestId') };
  if (spec.success.location) headers.Location = { description: 'The new resource.', schema: { type: 'string' } };
  const success: OpenApiObject = { description: spec.success.description, headers };
  if (spec.success.schema) success.content = { [JSON_API_MEDIA_TYPE]: { schema: schemaRef(spec.success.schema) } };
  const operation: OpenApiObject = {
    tags: [ADMIN_TAG],
    operationId: spec.operationId,
    summary: spec.summary,
    description: spec.description,
    security: [{ [ADMIN_SCHEME]: [] }],
  };
  if (spec.parameters) operation.parameters = spec.parameters;
  if (spec.body) operation.requestBody = jsonRequestBody(spec.body.schema, spec.body.description);
  const codes = [...GUARDED, ...spec.codes, ...(spec.body ? BODY_CODES : [])];
  operation.responses = { [String(spec.success.status)]: success, ...errorResponses(codes) };
  return operation;
}

export function pathParameter(
  name: string,
  description: string,
  schema: JsonSchema = { type: 'string' },
): OpenApiObject {
  return { name, in: 'path', required: true, description, schema };
}

export function queryParameter(
  name: string,
  description: string,
  schema: JsonSchema = { type: 'string', minLength: 1 },
): OpenApiObject {
  return { name, in: 'query', description, schema };
}

/**
 * `_limit`/`_offset` of an offset-paged listing and their `page[…]` synonyms (give one spelling of each),
 * with the listing's bounds: the admin listings' by default.
 */
export function offsetPageParameters(
  bounds: { items: string; defaultLimit: number; maxLimit: number } = {
    items: 'Items',
    defaultLimit: ADMIN_DEFAULT_LIMIT,
    maxLimit: ADMIN_MAX_LIMIT,
  },
): OpenApiObject[] {
  const limit = (): JsonSchema => ({ type: 'integer', minimum: 1, maximum: bounds.maxLimit });
  const offset = (): JsonSchema => ({ type: 'integer', minimum: 0 });
  return [
    queryParameter('_limit', `${bounds.items} per page (default ${bounds.defaultLimit}).`, {
      ...limit(),
      default: bounds.defaultLimit,
    }),
    queryParameter('_offset', `${bounds.items} to skip.`, { ...offset(), default: 0 }),
    queryParameter(
      'page[limit]',
      'Synonym of `_limit`, as used in pagination links; give only one of the two.',
      limit(),
    ),
    queryParameter(
      'page[offset]',
      'Synonym of `_offset`, as used in pagination links; give only one of the two.',
      offset(),
    ),
  ];
}

export const timestamp = (): JsonSchema => ({ type: 'string', format: 'date-time' });
export const nullableTimestamp = (): JsonSchema => ({ type: ['string', 'null'], format: 'date-time' });

/** A JSON:API resource object of `type` whose attributes are the named component schema. */
export function resourceObject(
  type: string,
  attributes: string,
  selfExample: string,
  extra: Record<string, JsonSchema> = {},
): JsonSchema {
  return {
    type: 'object',
    required: ['type', 'id', 'attributes', 'links'],
    properties: {
      type: { type: 'string', const: type },
      id: { type: 'string' },
      attributes: schemaRef(attributes),
      ...extra,
      links: { type: 'object', required: ['self'], properties: { self: { type: 'string', examples: [selfExample] } } },
    },
    additionalProperties: false,
  };
}

/** `{ data: <one> }` with an optional `links.self`. */
export function singleDocument(resource: string): JsonSchema {
  return {
    type: 'object',
    required: ['data'],
    properties: { data: schemaRef(resource), links: { type: 'object', properties: { self: { type: 'string' } } } },
    additionalProperties: false,
  };
}

/** `{ data: [...], meta: { total }, links }`; links holds self and, where given, first/prev/next/last. */
export function listDocument(resource: string): JsonSchema {
  const link = (): JsonSchema => ({ type: 'string' });
  return {
    type: 'object',
    required: ['data', 'meta', 'links'],
    properties: {
      data: { type: 'array', items: schemaRef(resource) },
      meta: {
        type: 'object',
        required: ['total'],
        properties: { total: { type: 'integer', minimum: 0 } },
        additionalProperties: false,
      },
      links: {
        type: 'object',
        required: ['self'],
        properties: { self: link(), first: link(), prev: link(), next: link(), last: link() },
        additionalProperties: false,
      },
    },
    additionalProperties: false,
  };
}
