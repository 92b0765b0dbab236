// OpenAPI for file fields: the multipart/form-data form of a record write, and each file field's
// download (GET …/{id}/<field>[/{index}]) and raw upload (PUT …/{id}/<field>) paths (docs/files.md).
import type { SvcConfig } from '../../config/config-types.ts';
import type { ErrorCode } from '../../errors/error-catalogue.ts';
import { fieldJsonSchema } from '../../resources/resource-json-schema.ts';
import { isFileType } from '../../resources/field-types/file-field.ts';
import type { Resource } from '../../resources/resource.ts';
import { errorResponses, KEY_AUTH_CODES, RATE_LIMIT_CODES } from './error-responses.ts';
import type { ResourceNames } from './openapi-names.ts';
import { JSON_API_MEDIA_TYPE, parameterRef, schemaRef, type OpenApiObject } from './openapi-refs.ts';
import { callerSecurity, successHeaders } from './shared-components.ts';

const MULTIPART = 'multipart/form-data';
const BINARY = { type: 'string', format: 'binary' };

export function hasFileFields(resource: Resource): boolean {
  return [...resource.fields.values()].some((field) => isFileType(field.definition));
}

/** The form a write may send instead of JSON: file parts for file fields, text parts for the others. */
export function multipartWriteContent(resource: Resource): OpenApiObject {
  const properties: Record<string, unknown> = {};
  for (const field of resource.fields.values()) {
    if (field.definition.type === 'file') {
      properties[field.name] = { ...BINARY, description: 'The file; an empty text part clears the field.' };
    } else if (field.definition.type === 'files') {
      properties[field.name] = {
        type: 'array',
        items: { oneOf: [BINARY, { type: 'string', description: 'The id of a file the record keeps.' }] },
        description: 'Files to upload and ids of current files to keep, in order.',
      };
    } else {
      const schema = fieldJsonSchema(field, 'patch');
      properties[field.name] = { ...schema, description: 'JSON text unless the field holds text.' };
    }
  }
  return {
    [MULTIPART]: {
      schema: { type: 'object', properties },
      encoding: Object.fromEntries(
        [...resource.fields.values()]
          .filter((field) => isFileType(field.definition))
          .map((field) => [
            field.name,
            { contentType: field.definition.accept?.join(', ') ?? 'application/octet-stream' },
          ]),
      ),
    },
  };
}

const DOWNLOAD_CODES: readonly ErrorCode[] = [
  'RESOURCE_NOT_FOUND',
  'INVALID_TOKEN',
  ...KEY_AUTH_CODES,
  'FORBIDDEN',
  'KEY_PERMISSION_DENIED',
  'RANGE_NOT_SATISFIABLE',
  ...RATE_LIMIT_CODES,
  'INTERNAL_ERROR',
];
const UPLOAD_CODES: readonly ErrorCode[] = [
  'INVALID_FIELDS',
  'INVALID_RESOURCE_DATA',
  'RESOURCE_NOT_FOUND',
  ...KEY_AUTH_CODES,
  'FORBIDDEN',
  'KEY_PERMISSION_DENIED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'PRECONDITION_FAILED',
  ...RATE_LIMIT_CODES,
  'INTERNAL_ERROR',
];

function download(resource: Resource, field: string, config: SvcConfig, list: boolean): OpenApiObject {
  const definition = resource.fields.get(field)?.definition;
  const open = definition?.protected === false;
  return {
    tags: [resource.name],
    security: [...callerSecurity(config), {}],
    operationId: `download_${resource.name}_${field}${list ? '_item' : ''}`,
    summary: `Download ${list ? 'one of the files' : 'the file'} of ${resource.name}.${field}`,
    description:
      (open
        ? 'The field is not protected: anyone with the URL downloads it.'
        : "Needs read permission on the record and the field (a hidden one answers 404 as a missing record), or the `token` of the field's `url`.") +
      ' Images and PDFs are shown inline, anything else is an attachment; a Content-Security-Policy sandbox keeps an uploaded page from running script.',
    parameters: [
      {
        name: 'token',
        in: 'query',
        required: false,
        schema: { type: 'string' },
        description: 'The signed token of the `url` in the record.',
      },
      {
        name: 'Range',
        in: 'header',
        required: false,
        schema: { type: 'string' },
        description: 'One byte range, `bytes=start-end`.',
      },
    ],
    responses: {
      '200': {
        description: 'The file, with its sniffed type, length and a strong ETag (its SHA-256).',
        headers: successHeaders(),
        content: { '*/*': { schema: BINARY } },
      },
      '206': { description: 'The requested range.', content: { '*/*': { schema: BINARY } } },
      '304': { description: 'The file has the ETag given in If-None-Match.' },
      ...errorResponses(DOWNLOAD_CODES),
    },
  };
}

export function filePaths(resource: Resource, names: ResourceNames, config: SvcConfig): Record<string, OpenApiObject> {
  const paths: Record<string, OpenApiObject> = {};
  for (const field of resource.fields.values()) {
    if (!isFileType(field.definition)) continue;
    const list = field.definition.type === 'files';
    paths[`/v1/${resource.name}/{id}/${field.name}`] = {
      parameters: [parameterRef('RecordId'), parameterRef('ServiceRole')],
      ...(list ? {} : { get: download(resource, field.name, config, false) }),
      put: {
        tags: [resource.name],
        security: callerSecurity(config),
        operationId: `upload_${resource.name}_${field.name}`,
        summary: `Upload the raw body into ${resource.name}.${field.name}`,
        description: list
          ? 'Appends the file to the list (up to maxCount).'
          : 'Replaces the file; the old one is removed after the commit.',
        requestBody: {
          required: true,
          description:
            'The bytes; its type is sniffed from them. `Content-Disposition: attachment; filename="…"` names it.',
          content: { '*/*': { schema: BINARY } },
        },
        responses: {
          '200': {
            description: 'The updated record.',
            headers: successHeaders(),
            content: { [JSON_API_MEDIA_TYPE]: { schema: schemaRef(names.schema('Document')) } },
          },
          ...errorResponses(UPLOAD_CODES),
        },
      },
    };
    if (list) {
      paths[`/v1/${resource.name}/{id}/${field.name}/{index}`] = {
        parameters: [
          parameterRef('RecordId'),
          { name: 'index', in: 'path', required: true, schema: { type: 'integer', minimum: 0 } },
          parameterRef('ServiceRole'),
        ],
        get: download(resource, field.name, config, true),
      };
    }
  }
  return paths;
}
