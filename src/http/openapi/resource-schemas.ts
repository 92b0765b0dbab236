// Component schemas of one resource: its attributes, the JSON:API resource object and documents,
// and the flat request bodies of create, replace and patch. All derive from the field definitions.
import type { JsonSchema } from '../../resources/field-types/index.ts';
import type { Resource } from '../../resources/resource.ts';
import {
  fieldJsonSchema,
  resourceJsonSchema,
  SYSTEM_FIELD_SCHEMAS,
  type FieldSchemaUse,
} from '../../resources/resource-json-schema.ts';
import type { ResourceNames, ResourceSchemaSuffix } from './openapi-names.ts';
import { schemaRef } from './openapi-refs.ts';
import { requestDocumentSchema } from './request-document-schemas.ts';
import { toOneRelations } from '../../resources/relations.ts';

// Links are paths such as `/v1/posts?page[offset]=0&page[limit]=50`; the brackets are sent unencoded
// (docs/records.md), which RFC 3986 does not allow in a query, so `format: uri-reference` would reject them.
const LINK: JsonSchema = { type: 'string' };

/**
 * Attributes as a caller reads them. Only the timestamps are required: role rules and `fields`
 * select which declared fields a response carries, so none of them is guaranteed to be present.
 * `id` is a member of the resource object, not of its attributes (docs/records.md).
 */
function attributesSchema(resource: Resource): JsonSchema {
  const record = resourceJsonSchema(resource, null);
  const properties = { ...(record.properties as Record<string, JsonSchema>) };
  delete properties.id;
  return {
    type: 'object',
    description: `Attributes of a ${resource.name} record.`,
    properties,
    required: ['created_at', 'updated_at'],
    additionalProperties: false,
  };
}

/** The to-one relationships: one per relation field, present when the field is shown (docs/records.md). */
function relationshipsSchema(resource: Resource): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const relation of toOneRelations(resource)) {
    properties[relation.name] = {
      type: 'object',
      description: `The ${relation.target} record \`${relation.field}\` refers to; \`data\` is null when it refers to none.`,
      required: ['data'],
      properties: {
        data: {
          oneOf: [
            { type: 'null' },
            {
              type: 'object',
              required: ['type', 'id'],
              properties: { type: { type: 'string', const: relation.target }, id: { ...SYSTEM_FIELD_SCHEMAS.id } },
            },
          ],
        },
        links: {
          type: 'object',
          required: ['related'],
          properties: {
            related: { ...LINK, examples: [`/v1/${relation.target}/0190b5a2-7c1e-7d3a-9f00-3c5e2a1b4d6f`] },
          },
        },
      },
    };
  }
  // A to-many side, present when `include` read it: the linkage of the related records the caller may read.
  const toMany: JsonSchema = {
    type: 'object',
    required: ['data'],
    properties: {
      data: {
        type: 'array',
        items: {
          type: 'object',
          required: ['type', 'id'],
          properties: { type: { type: 'string' }, id: { ...SYSTEM_FIELD_SCHEMAS.id } },
        },
      },
      links: { type: 'object', required: ['related'], properties: { related: { ...LINK } } },
    },
  };
  return {
    type: 'object',
    description: 'Relation fields as JSON:API to-one relationships; to-many sides when `include` named them.',
    properties,
    additionalProperties: toMany,
  };
}

/** `included` of a compound document: related records of any type, each as its resource's own resource object. */
const included = (): JsonSchema => ({
  type: 'array',
  description:
    'The records `include` asked for, each (type, id) once, as the caller may read them; present when `include` is given.',
  items: {
    type: 'object',
    required: ['type', 'id', 'attributes', 'links'],
    properties: {
      type: { type: 'string' },
      id: { ...SYSTEM_FIELD_SCHEMAS.id },
      attributes: { type: 'object' },
      relationships: { type: 'object' },
      links: { type: 'object' },
    },
  },
});

function resourceObjectSchema(resource: Resource, names: ResourceNames): JsonSchema {
  return {
    type: 'object',
    description: `A ${resource.name} record as a JSON:API resource object.`,
    required: ['type', 'id', 'attributes', 'links'],
    properties: {
      type: { type: 'string', const: resource.name },
      id: { ...SYSTEM_FIELD_SCHEMAS.id },
      attributes: schemaRef(names.schema('Attributes')),
      relationships: relationshipsSchema(resource),
      meta: {
        type: 'object',
        properties: {
          can: {
            type: 'object',
            description:
              "Whether the caller may update and delete this record, judged against the role's filters; present when a filter decides it.",
            required: ['update', 'delete'],
            properties: { update: { type: 'boolean' }, delete: { type: 'boolean' } },
            additionalProperties: false,
          },
        },
      },
      links: {
        type: 'object',
        required: ['self'],
        properties: { self: { ...LINK, examples: [`/v1/${resource.name}/0190b5a2-7c1e-7d3a-9f00-3c5e2a1b4d6f`] } },
      },
    },
  };
}

function listDocumentSchema(resource: Resource, names: ResourceNames): JsonSchema {
  const link = (text: string): JsonSchema => ({ ...LINK, description: text });
  return {
    type: 'object',
    description: `A page of ${resource.name} records. Links keep the request's filters, \`_sort\` and \`fields\`.`,
    required: ['data', 'meta', 'links'],
    properties: {
      data: { type: 'array', items: schemaRef(names.schema('Resource')) },
      included: included(),
      meta: {
        type: 'object',
        required: ['total'],
        properties: { total: { type: 'integer', minimum: 0, description: 'Count of all matching records' } },
      },
      links: {
        type: 'object',
        required: ['self', 'first'],
        properties: {
          self: link('This page'),
          first: link('The first page'),
          prev: link(
            'The previous page; present when the offset is above 0, or (keyset pages) when records come before this page',
          ),
          next: link(
            'The next page; present when more records follow. On a keyset page it carries the cursor of its last record',
          ),
          last: link('The last page; present when there is at least one record (always on keyset pages)'),
        },
      },
    },
  };
}

/** A flat request body; `create` and `replace` require the required fields that have no default. */
function bodySchema(resource: Resource, use: FieldSchemaUse, description: string): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const field of resource.fields.values()) properties[field.name] = fieldJsonSchema(field, use);
  const schema: JsonSchema = { type: 'object', description, properties, additionalProperties: false };
  if (use !== 'patch') {
    // The server fills in a default before checking `required` (validate-record-body.ts).
    const required = [...resource.fields.values()]
      .filter((f) => f.required && f.definition.default === undefined)
      .map((f) => f.name);
    if (required.length > 0) schema.required = required;
  }
  return schema;
}

export function resourceSchemas(resource: Resource, names: ResourceNames): Record<string, JsonSchema> {
  const schemas: Record<ResourceSchemaSuffix, JsonSchema> = {
    Attributes: attributesSchema(resource),
    Resource: resourceObjectSchema(resource, names),
    Document: {
      type: 'object',
      description: `A single ${resource.name} record.`,
      required: ['data'],
      properties: {
        data: schemaRef(names.schema('Resource')),
        included: included(),
        links: { type: 'object', properties: { self: { ...LINK, description: 'The record' } } },
      },
    },
    ListDocument: listDocumentSchema(resource, names),
    CreateBody: bodySchema(
      resource,
      'write',
      `Fields of a new ${resource.name} record as a flat object (not wrapped in \`data\`). Omitted fields take their default.`,
    ),
    ReplaceBody: bodySchema(
      resource,
      'write',
      `Every field of the ${resource.name} record (full replace). Omitted fields take their default, or null.`,
    ),
    PatchBody: bodySchema(
      resource,
      'patch',
      `Only the ${resource.name} fields to change; the others keep their values.`,
    ),
    CreateRequestDocument: requestDocumentSchema(
      resource,
      'create',
      `A new ${resource.name} record as a JSON:API document; \`data.id\` is set by the server.`,
    ),
    ReplaceRequestDocument: requestDocumentSchema(
      resource,
      'replace',
      `Every field of the ${resource.name} record as a JSON:API document.`,
    ),
    PatchRequestDocument: requestDocumentSchema(
      resource,
      'patch',
      `The ${resource.name} fields to change as a JSON:API document.`,
    ),
  };
  return Object.fromEntries(
    Object.entries(schemas).map(([suffix, schema]) => [names.schema(suffix as ResourceSchemaSuffix), schema]),
  );
}
