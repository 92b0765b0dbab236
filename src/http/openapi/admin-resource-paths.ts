// The admin endpoints that show the resource definitions in force (GET /admin/resources and
// /admin/resources/{name}), their documents, and the admin token's security scheme.
import { ACTIONS } from '../../config/config-types.ts';
import type { ErrorCode } from '../../errors/error-catalogue.ts';
import { FIELD_TYPES, type JsonSchema } from '../../resources/field-types/index.ts';
import { errorResponses } from './error-responses.ts';
import { headerRef, JSON_API_MEDIA_TYPE, schemaRef, type OpenApiObject } from './openapi-refs.ts';

export const ADMIN_SCHEME = 'adminToken';
export const ADMIN_TAG = 'Admin';
export const ADMIN_SCHEMAS = [
  'ResourceDefinition',
  'ResourceDefinitionDocument',
  'ResourceDefinitionListDocument',
] as const;
export const ADMIN_OPERATIONS = ['listResourceDefinitions', 'getResourceDefinition'] as const;

const ADMIN_CODES: ErrorCode[] = [
  'UNAUTHORIZED',
  'INVALID_API_KEY',
  'FORBIDDEN',
  'INVALID_QUERY_PARAMS',
  'NOT_ACCEPTABLE',
  'INTERNAL_ERROR',
];

export function adminSecuritySchemes(): OpenApiObject {
  return {
    [ADMIN_SCHEME]: {
      type: 'http',
      scheme: 'bearer',
      description:
        'The admin token (`SVC_ADMIN_TOKEN`, `adminToken`, or the one generated at first start). API keys are refused with 403 `FORBIDDEN`.',
    },
  };
}

/** Keeps a filter, check or preset as written in the config: any JSON object. */
const RULE_OBJECT: JsonSchema = { type: 'object' };

function appliedProperties(): Record<string, JsonSchema> {
  return {
    definitionsVersion: {
      type: ['integer', 'null'],
      minimum: 1,
      description: 'Version of the applied definitions, shared by every node on the database',
    },
    appliedAt: {
      type: ['string', 'null'],
      format: 'date-time',
      description: 'When these definitions were applied (by any node)',
    },
    appliedFrom: {
      type: ['string', 'null'],
      description: 'The config file they were read from; null when none was given',
    },
  };
}

function fieldSchema(): JsonSchema {
  const number = (description: string): JsonSchema => ({ type: 'number', description });
  return {
    type: 'object',
    required: ['type', 'id', 'required', 'nullable', 'unique', 'sortable'],
    properties: {
      type: { type: 'string', enum: Object.keys(FIELD_TYPES) },
      id: { type: 'string', description: 'Stable field id (webhook `fieldIds`)' },
      required: { type: 'boolean' },
      nullable: { type: 'boolean' },
      unique: { type: 'boolean' },
      sortable: { type: 'boolean' },
      default: { description: 'Value given when a create leaves the field out' },
      minLength: { type: 'integer', minimum: 0 },
      maxLength: { type: 'integer', minimum: 0, description: 'For `string`, 255 unless the definition says otherwise' },
      pattern: { type: 'string' },
      minimum: number('Lowest accepted value'),
      maximum: number('Highest accepted value'),
      description: { type: 'string' },
      values: { type: 'array', items: { type: 'string' }, description: '`enum` only: the accepted values' },
      resource: { type: ['string', 'null'], description: '`relation` only: the target resource' },
      onDelete: { type: 'string', enum: ['restrict', 'cascade', 'set_null'], description: '`relation` only' },
    },
    additionalProperties: false,
  };
}

function ruleSchema(): JsonSchema {
  return {
    type: 'object',
    required: ['fields'],
    properties: {
      fields: {
        anyOf: [
          { type: 'string', const: '*' },
          { type: 'array', items: { type: 'string' } },
        ],
        description: '`"*"`: every field',
      },
      filter: { ...RULE_OBJECT, description: 'Rows the action applies to (read, update, delete)' },
      check: { ...RULE_OBJECT, description: 'Must hold for the row as written (create, update)' },
      preset: { ...RULE_OBJECT, description: 'Values set by the server (create, update)' },
    },
    additionalProperties: false,
  };
}

export function adminSchemas(): Record<(typeof ADMIN_SCHEMAS)[number], JsonSchema> {
  const rule = ruleSchema();
  return {
    ResourceDefinition: {
      type: 'object',
      description: 'A resource definition in force, as a JSON:API resource object whose id is the resource name.',
      required: ['type', 'id', 'attributes', 'links'],
      properties: {
        type: { type: 'string', const: 'resources' },
        id: { type: 'string', description: 'The resource name' },
        attributes: {
          type: 'object',
          required: [
            'description',
            'enabled',
            'softDelete',
            'fields',
            'permissions',
            'definitionsVersion',
            'appliedAt',
            'appliedFrom',
          ],
          properties: {
            description: { type: ['string', 'null'] },
            enabled: {
              type: 'boolean',
              description: 'false: every endpoint of the resource answers 404 `RESOURCE_DISABLED`',
            },
            softDelete: { type: 'boolean' },
            fields: {
              type: 'object',
              description: 'Declared fields by name, in definition order',
              additionalProperties: fieldSchema(),
            },
            permissions: {
              type: 'object',
              description: 'Per role, the actions it may take; an action left out is forbidden',
              additionalProperties: {
                type: 'object',
                properties: Object.fromEntries(ACTIONS.map((action) => [action, structuredClone(rule)])),
                additionalProperties: false,
              },
            },
            ...appliedProperties(),
          },
          additionalProperties: false,
        },
        links: {
          type: 'object',
          required: ['self'],
          properties: { self: { type: 'string', examples: ['/admin/resources/posts'] } },
        },
      },
    },
    ResourceDefinitionDocument: {
      type: 'object',
      required: ['data'],
      properties: {
        data: schemaRef('ResourceDefinition'),
        links: { type: 'object', properties: { self: { type: 'string' } } },
      },
    },
    ResourceDefinitionListDocument: {
      type: 'object',
      required: ['data', 'meta'],
      properties: {
        data: { type: 'array', items: schemaRef('ResourceDefinition') },
        meta: {
          type: 'object',
          required: ['total'],
          properties: { total: { type: 'integer', minimum: 0 }, ...appliedProperties() },
        },
        links: { type: 'object', properties: { self: { type: 'string' } } },
      },
    },
  };
}

function ok(description: string, schema: string): OpenApiObject {
  return {
    description,
    headers: { 'X-Request-Id': headerRef('XRequestId') },
    content: { [JSON_API_MEDIA_TYPE]: { schema: schemaRef(schema) } },
  };
}

export function adminResourcePaths(): Record<string, OpenApiObject> {
  // A function, not a shared array: the document stays a tree, so YAML output needs no anchors.
  const security = () => [{ [ADMIN_SCHEME]: [] }];
  return {
    '/admin/resources': {
      get: {
        tags: [ADMIN_TAG],
        operationId: 'listResourceDefinitions',
        summary: 'The resource definitions in force',
        description: 'Every configured resource, disabled ones included, as every node serves it.',
        security: security(),
        responses: { '200': ok('The definitions.', 'ResourceDefinitionListDocument'), ...errorResponses(ADMIN_CODES) },
      },
    },
    '/admin/resources/{name}': {
      get: {
        tags: [ADMIN_TAG],
        operationId: 'getResourceDefinition',
        summary: 'One resource definition in force',
        description:
          'The named resource as configured, disabled or not: its fields, soft delete and permissions per role.',
        security: security(),
        parameters: [
          { name: 'name', in: 'path', required: true, description: 'Resource name.', schema: { type: 'string' } },
        ],
        responses: {
          '200': ok('The definition.', 'ResourceDefinitionDocument'),
          ...errorResponses([...ADMIN_CODES, 'RESOURCE_NOT_FOUND']),
        },
      },
    },
  };
}
