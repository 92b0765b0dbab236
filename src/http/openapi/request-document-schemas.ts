// JSON:API request documents of create, replace and patch (application/vnd.api+json): the flat body's
// fields split into `attributes` and to-one `relationships` with {type,id} linkage (docs/records.md).
import type { JsonSchema } from '../../resources/field-types/index.ts';
import type { Resource } from '../../resources/resource.ts';
import { fieldJsonSchema, type FieldSchemaUse } from '../../resources/resource-json-schema.ts';

export type RequestDocumentMode = 'create' | 'replace' | 'patch';

function linkageSchema(target: string, nullable: boolean): JsonSchema {
  const identifier: JsonSchema = {
    type: 'object',
    required: ['type', 'id'],
    properties: { type: { type: 'string', const: target }, id: { type: 'string' } },
  };
  return {
    type: 'object',
    required: ['data'],
    properties: { data: nullable ? { oneOf: [identifier, { type: 'null' }] } : identifier },
  };
}

/** `data.id`: the URL's id on replace and patch; on create only where the resource takes client ids. */
function idProperty(resource: Resource, mode: RequestDocumentMode): Record<string, JsonSchema> {
  if (mode !== 'create') return { id: { type: 'string', format: 'uuid', description: 'The id in the URL' } };
  if (resource.definition.clientIds !== true) return {};
  return { id: { type: 'string', format: 'uuid', description: 'An id the client chose (`clientIds`); left out, the server makes one' } };
}

/** A request document of `mode`: `data.id` is required (the URL's id) on replace and patch. */
export function requestDocumentSchema(resource: Resource, mode: RequestDocumentMode, description: string): JsonSchema {
  const use: FieldSchemaUse = mode === 'patch' ? 'patch' : 'write';
  const attributes: Record<string, JsonSchema> = {};
  const relationships: Record<string, JsonSchema> = {};
  const requiredAttributes: string[] = [];
  const requiredRelationships: string[] = [];
  for (const field of resource.fields.values()) {
    const required = mode !== 'patch' && field.required && field.definition.default === undefined;
    if (field.definition.type === 'relation' && field.definition.resource !== undefined) {
      relationships[field.name] = linkageSchema(field.definition.resource, field.nullable);
      if (required) requiredRelationships.push(field.name);
    } else {
      attributes[field.name] = fieldJsonSchema(field, use);
      if (required) requiredAttributes.push(field.name);
    }
  }
  const data: JsonSchema = {
    type: 'object',
    required: [
      'type',
      ...(mode === 'create' ? [] : ['id']),
      ...(requiredAttributes.length > 0 ? ['attributes'] : []),
      ...(requiredRelationships.length > 0 ? ['relationships'] : []),
    ],
    properties: {
      type: { type: 'string', const: resource.name },
      ...idProperty(resource, mode),
      attributes: { type: 'object', properties: attributes, additionalProperties: false, ...(requiredAttributes.length > 0 ? { required: requiredAttributes } : {}) },
    },
  };
  if (Object.keys(relationships).length > 0) {
    (data.properties as Record<string, JsonSchema>).relationships = {
      type: 'object',
      properties: relationships,
      additionalProperties: false,
      ...(requiredRelationships.length > 0 ? { required: requiredRelationships } : {}),
    };
  }
  return { type: 'object', description, required: ['data'], properties: { data } };
}
