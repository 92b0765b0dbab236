// Path items of one resource: collection, record, JSON Schema and event stream (docs/records.md, docs/streams.md).
import { hasFileFields, multipartWriteContent } from './file-paths.ts';
import type { SvcConfig } from '../../config/config-types.ts';
import type { ErrorCode } from '../../errors/error-catalogue.ts';
import type { Resource } from '../../resources/resource.ts';
import { resourceJsonSchema } from '../../resources/resource-json-schema.ts';
import { BODY_CODES, errorResponses, KEY_AUTH_CODES, RATE_LIMIT_CODES } from './error-responses.ts';
import type { ResourceNames } from './openapi-names.ts';
import {
  headerRef,
  JSON_API_MEDIA_TYPE,
  JSON_SCHEMA_MEDIA_TYPE,
  JSON_MEDIA_TYPE,
  parameterRef,
  schemaRef,
  type OpenApiObject,
} from './openapi-refs.ts';
import {
  compoundParameters,
  fieldsParameter,
  filterParameters,
  filterTreeParameter,
  listParameters,
} from './query-parameters.ts';
import { aggregateDocumentSchema, aggregateParameters } from './aggregate-path.ts';
import { callerSecurity, QUERY_TOKEN_SCHEME, successHeaders } from './shared-components.ts';
import { ifMatchParameter, ifNoneMatchParameter, notModifiedResponse, withEntityTag } from './conditional-requests.ts';
import { IDEMPOTENCY_CODES, idempotencyKeyParameter, withReplayedHeader } from './idempotency-openapi.ts';
import { IDEMPOTENCY_DEFAULTS } from '../../config/idempotency-settings.ts';

/** Codes every keyed operation can answer with, besides its own. */
const KEYED: readonly ErrorCode[] = [
  ...KEY_AUTH_CODES,
  'FORBIDDEN',
  'KEY_PERMISSION_DENIED',
  ...RATE_LIMIT_CODES,
  'INTERNAL_ERROR',
];
/** Operations that answer JSON:API documents also refuse an Accept that modifies every JSON:API type (406). */
const NEGOTIATED: readonly ErrorCode[] = [...KEYED, 'NOT_ACCEPTABLE'];
/** Writes through resource endpoints: bodies, validation, uniqueness, and no admin token. */
const WRITE: readonly ErrorCode[] = [
  ...BODY_CODES,
  'INVALID_RESOURCE_DATA',
  'INVALID_FIELDS',
  'RELATION_REFERENCE_ERROR',
  'CONFLICT',
  'ADMIN_TOKEN_NOT_ALLOWED',
];
/** A create may also be refused a client-generated id. */
const CREATE: readonly ErrorCode[] = [...WRITE, 'CLIENT_GENERATED_ID_FORBIDDEN'];

/** A write's body: the flat object as application/json, the JSON:API document as its media type (docs/records.md). */
function writeRequestBody(
  resource: Resource,
  flatSchema: string,
  documentSchema: string,
  description: string,
): OpenApiObject {
  const files = hasFileFields(resource);
  return {
    description:
      `${description} As \`${JSON_MEDIA_TYPE}\`, a flat object of field values; as \`${JSON_API_MEDIA_TYPE}\`, a JSON:API document whose relation fields are \`relationships\` with {type, id} linkage.` +
      (files ? ' As `multipart/form-data`, form fields and the files to upload.' : ''),
    required: true,
    content: {
      [JSON_MEDIA_TYPE]: { schema: schemaRef(flatSchema) },
      [JSON_API_MEDIA_TYPE]: { schema: schemaRef(documentSchema) },
      ...(files ? multipartWriteContent(resource) : {}),
    },
  };
}

function documentResponse(description: string, schemaName: string): OpenApiObject {
  return {
    description,
    headers: successHeaders(),
    content: { [JSON_API_MEDIA_TYPE]: { schema: schemaRef(schemaName) } },
  };
}

function withLocation(response: OpenApiObject): OpenApiObject {
  const location = { description: 'Path of the new record, `/v1/<resource>/<id>`.', schema: { type: 'string' } };
  return { ...response, headers: { ...(response.headers as OpenApiObject), Location: location } };
}

/** `_upsert=<unique field>`, where the resource has a unique field (docs/atomic.md). */
function upsertParameter(resource: Resource): OpenApiObject[] {
  const unique = [...resource.fields.values()]
    .filter((field) => field.definition.unique === true)
    .map((field) => field.name);
  if (unique.length === 0) return [];
  return [
    {
      name: '_upsert',
      in: 'query',
      description:
        "Create or update by this unique field: when a record already holds the body's value, it is updated instead (200; needs the update permission too).",
      schema: { type: 'string', enum: unique },
    },
  ];
}

/** `_format` (docs/records.md, "Export"): the list as a file instead of a page. */
function exportFormatParameter(): OpenApiObject {
  return {
    name: '_format',
    in: 'query',
    description:
      "Export: `csv` (RFC 4180, a header row, text starting with `=`, `+`, `-`, `@`, a tab or CR prefixed with `'`) or `ndjson` " +
      '(one JSON object a line): every record the filters match and the caller may read, with the readable fields (or `fields`), ' +
      'streamed without pages. `Accept: text/csv` or `Accept: application/x-ndjson` asks the same. With an export, `_limit`, `_offset`, ' +
      '`page[...]` and `include`: 400 `INVALID_QUERY_PARAMS`. The 200 is then `text/csv` (columns `id`, the fields, `created_at`, ' +
      '`updated_at`) or `application/x-ndjson`, not the JSON:API document (left out of the responses so typed clients keep the document type).',
    schema: { type: 'string', enum: ['csv', 'ndjson'] },
  };
}

export function resourcePaths(
  resource: Resource,
  names: ResourceNames,
  config: SvcConfig,
): Record<string, OpenApiObject> {
  const name = resource.name;
  // Fresh arrays per operation: the document stays a tree, so YAML output needs no anchors.
  const security = () => callerSecurity(config);
  const operation = (fields: OpenApiObject): OpenApiObject => ({ tags: [name], security: security(), ...fields });
  const deletion = resource.softDelete
    ? 'Soft delete: the record gets a `deleted_at` timestamp and disappears from the API.'
    : 'The record is removed permanently.';

  const collection: OpenApiObject = {
    parameters: [parameterRef('ServiceRole')],
    get: operation({
      operationId: names.operationId('list'),
      summary: `List ${name} records`,
      description:
        "Filters on different parameters combine with AND. Only rows inside the caller's read filter are listed. " +
        'Every filter may also be written as JSON:API clients send it: `filter[<field>]=` for `<field>=`, `filter[<field>][<op>]=` for `<field>__<op>=`.',
      parameters: [...listParameters(resource), exportFormatParameter(), ifNoneMatchParameter()],
      responses: {
        '200': withEntityTag(documentResponse(`A page of ${name} records.`, names.schema('ListDocument'))),
        '304': notModifiedResponse(),
        ...errorResponses(['INVALID_QUERY_PARAMS', 'INVALID_FIELDS', ...NEGOTIATED, 'RESOURCE_FETCH_ERROR']),
      },
    }),
    post: operation({
      operationId: names.operationId('create'),
      summary: `Create a ${name} record`,
      description:
        "Only the fields the caller's role may create are accepted, and the role's preset values are set by the server, as are `id`, " +
        '`created_at` and `updated_at`, and a `created` event follows on the stream and to webhooks.',
      parameters: [
        idempotencyKeyParameter((config.idempotency ?? IDEMPOTENCY_DEFAULTS).ttlMs),
        ...upsertParameter(resource),
      ],
      requestBody: writeRequestBody(
        resource,
        names.schema('CreateBody'),
        names.schema('CreateRequestDocument'),
        `The new record's fields.`,
      ),
      responses: {
        '201': withReplayedHeader(
          withLocation(
            documentResponse(
              'The created record, with its generated `id`, `created_at` and `updated_at`.',
              names.schema('Document'),
            ),
          ),
        ),
        ...(upsertParameter(resource).length > 0
          ? {
              '200': documentResponse(
                'With `_upsert`: the record that held the value, updated (an `updated` event follows).',
                names.schema('Document'),
              ),
            }
          : {}),
        ...errorResponses([...CREATE, ...NEGOTIATED, 'RESOURCE_STORE_ERROR', ...IDEMPOTENCY_CODES]),
      },
    }),
  };

  const record: OpenApiObject = {
    parameters: [parameterRef('RecordId'), parameterRef('ServiceRole')],
    get: operation({
      operationId: names.operationId('get'),
      summary: `Get a ${name} record`,
      description:
        "Only fields the caller may read appear. A record outside the caller's read filter answers 404, as if it did not exist.",
      parameters: [...compoundParameters(resource), ifNoneMatchParameter()],
      responses: {
        '200': withEntityTag(documentResponse('The record.', names.schema('Document'))),
        '304': notModifiedResponse(),
        ...errorResponses([
          'INVALID_QUERY_PARAMS',
          'INVALID_FIELDS',
          'RESOURCE_NOT_FOUND',
          ...NEGOTIATED,
          'RESOURCE_FIND_ERROR',
          'RESOURCE_FETCH_ERROR',
        ]),
      },
    }),
    put: operation({
      operationId: names.operationId('replace'),
      summary: `Replace a ${name} record`,
      description:
        'Every writable field is set from the body: a field left out takes its default, or null. `updated_at` is set by the server.',
      parameters: [ifMatchParameter()],
      requestBody: writeRequestBody(
        resource,
        names.schema('ReplaceBody'),
        names.schema('ReplaceRequestDocument'),
        'Every field of the record.',
      ),
      responses: {
        '200': withEntityTag(documentResponse('The replaced record.', names.schema('Document'))),
        ...errorResponses([
          ...WRITE,
          'RESOURCE_NOT_FOUND',
          'PRECONDITION_FAILED',
          ...NEGOTIATED,
          'RESOURCE_UPDATE_ERROR',
        ]),
      },
    }),
    patch: operation({
      operationId: names.operationId('update'),
      summary: `Update fields of a ${name} record`,
      description:
        'Only the fields in the body change; the others keep their values. `updated_at` is set by the server.',
      parameters: [ifMatchParameter()],
      requestBody: writeRequestBody(
        resource,
        names.schema('PatchBody'),
        names.schema('PatchRequestDocument'),
        'The fields to change.',
      ),
      responses: {
        '200': withEntityTag(documentResponse('The updated record.', names.schema('Document'))),
        ...errorResponses([
          ...WRITE,
          'RESOURCE_NOT_FOUND',
          'PRECONDITION_FAILED',
          ...NEGOTIATED,
          'RESOURCE_UPDATE_ERROR',
        ]),
      },
    }),
    delete: operation({
      operationId: names.operationId('delete'),
      summary: `Delete a ${name} record`,
      description: deletion,
      parameters: [ifMatchParameter()],
      responses: {
        '204': { description: 'Deleted; no body.', headers: successHeaders() },
        ...errorResponses([
          'RESOURCE_NOT_FOUND',
          'CONFLICT',
          'PRECONDITION_FAILED',
          ...NEGOTIATED,
          'RESOURCE_DELETE_ERROR',
        ]),
      },
    }),
  };

  const schema: OpenApiObject = {
    parameters: [parameterRef('ServiceRole')],
    get: operation({
      operationId: names.operationId('schema'),
      summary: `JSON Schema of ${name} records`,
      description:
        'The JSON Schema (draft 2020-12) of a record as the caller may read it: only readable fields appear.',
      responses: {
        '200': {
          description: 'A JSON Schema document.',
          headers: successHeaders(),
          content: {
            [JSON_SCHEMA_MEDIA_TYPE]: {
              schema: { type: 'object', description: 'A JSON Schema (draft 2020-12)' },
              // The schema as a caller who may read every field sees it.
              example: resourceJsonSchema(resource, null),
            },
          },
        },
        ...errorResponses([...KEYED, 'RESOURCE_SCHEMA_ERROR']),
      },
    }),
  };

  const streamParameters = [
    parameterRef('StreamEvents'),
    fieldsParameter(
      resource,
      'Fields to include in events, comma-separated; intersected with the fields the caller may read.',
    ),
    parameterRef('LastEventIdHeader'),
    parameterRef('LastEventIdQuery'),
    filterTreeParameter(resource),
    ...filterParameters(resource),
  ];
  if (config.stream.allowQueryToken) streamParameters.push(parameterRef('StreamToken'));
  const stream: OpenApiObject = {
    parameters: [parameterRef('ServiceRole')],
    get: operation({
      operationId: names.operationId('stream'),
      summary: `Stream ${name} events`,
      description:
        `Server-Sent Events. On connect the server sends \`retry: ${config.stream.retryMs}\` and the comment \`: connected\`, ` +
        `then \`: heartbeat\` every ${config.stream.heartbeatMs / 1000} s. Each event carries \`event\` (\`${name}.created\`, ` +
        `\`${name}.updated\` or \`${name}.deleted\`), \`id\` (the event's UUID, for \`Last-Event-ID\`) and \`data\`: JSON ` +
        '`{ old, new, changes: { added, updated, removed } }` reduced to the readable fields. Only events on rows inside the ' +
        "caller's read filter and the request's filters (`_filter`, `field=value`, `field__op=value`, as on the list) are " +
        'delivered: a record that starts to match arrives as `created`, one that stops as `deleted`.',
      security: config.stream.allowQueryToken ? [...security(), { [QUERY_TOKEN_SCHEME]: [] }] : security(),
      parameters: streamParameters,
      responses: {
        '200': {
          description: 'An open event stream.',
          headers: {
            'X-Request-Id': headerRef('XRequestId'),
            'Cache-Control': { schema: { type: 'string', const: 'no-cache' } },
            'X-Accel-Buffering': { schema: { type: 'string', const: 'no' } },
          },
          content: { 'text/event-stream': { schema: { type: 'string' } } },
        },
        ...errorResponses(['INVALID_QUERY_PARAMS', 'INVALID_FIELDS', ...KEYED]),
      },
    }),
  };

  const aggregate: OpenApiObject = {
    parameters: [parameterRef('ServiceRole')],
    get: operation({
      operationId: names.operationId('aggregate'),
      summary: `Aggregate ${name} records`,
      description:
        "Groups the rows inside the caller's read filter that the filters match, with a count and sums, averages, least and greatest values.",
      parameters: aggregateParameters(resource),
      responses: {
        '200': {
          description: `One \`${name}-aggregates\` object per group.`,
          headers: successHeaders(),
          content: { [JSON_API_MEDIA_TYPE]: { schema: aggregateDocumentSchema(resource) } },
        },
        ...errorResponses(['INVALID_QUERY_PARAMS', 'INVALID_FIELDS', ...KEYED, 'RESOURCE_FETCH_ERROR']),
      },
    }),
  };

  return {
    [`/v1/${name}`]: collection,
    [`/v1/${name}/aggregate`]: aggregate,
    [`/v1/${name}/{id}`]: record,
    [`/v1/${name}/schema`]: schema,
    [`/v1/${name}/stream`]: stream,
  };
}
