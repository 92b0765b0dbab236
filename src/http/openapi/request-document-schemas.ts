// JSON:API request documents of create, replace and patch (application/vnd.api+json): the flat body's
// fields in `attributes`, and each relation field also as a to-one relationship with {type,id} linkage
// under its relationship name or its field's name (docs/records.md). The envelope every document has
// is the one its reader checks (bodies/json-api-document-body.ts); these add what a resource's take.
import type { JsonSchema } from '../../resources/field-types/index.ts';
import { JSON_API_DOCUMENT_NAME } from '../bodies/json-api-document-body.ts';
import { schemaRef } from './openapi-refs.ts';
import { toOneRelation } from '../../resources/relations.ts';
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
  return {
    id: {
      type: 'string',
      format: 'uuid',
      description: 'An id the client chose (`clientIds`); left out, the server makes one',
    },
  };
}

/** A request document of `mode`: `data.id` is required (the URL's id) on replace and patch. */
export function requestDocumentSchema(resource: Resource, mode: RequestDocumentMode, description: string): JsonSchema {
  const use: FieldSchemaUse = mode === 'patch' ? 'patch' : 'write';
  const attributes: Record<string, JsonSchema> = {};
  const relationships: Record<string, JsonSchema> = {};
  const requiredAttributes: string[] = [];
  /** A required relation field may come as its attribute or as its relationship (under either name). */
  const eitherWay: JsonSchema[] = [];
  for (const field of resource.fields.values()) {
    const required = mode !== 'patch' && field.required && field.definition.default === undefined;
    attributes[field.name] = fieldJsonSchema(field, use);
    const relation = field.definition.type === 'relation' ? toOneRelation(resource, field.name) : undefined;
    if (relation === undefined) {
      if (required) requiredAttributes.push(field.name);
      continue;
    }
    const names = [...new Set([relation.name, field.name])];
    for (const name of names) relationships[name] = linkageSchema(relation.target, field.nullable);
    if (required) {
      eitherWay.push({
        anyOf: [
          {
            type: 'object',
            required: ['attributes'],
            properties: { attributes: { type: 'object', properties: { [field.name]: {} }, required: [field.name] } },
          },
          ...names.map((name) => ({
            type: 'object',
            required: ['relationships'],
            properties: { relationships: { type: 'object', properties: { [name]: {} }, required: [name] } },
          })),
        ],
      });
    }
  }
  const data: JsonSchema = {
    type: 'object',
    required: ['type', ...(mode === 'create' ? [] : ['id']), ...(requiredAttributes.length > 0 ? ['attributes'] : [])],
    properties: {
      type: { type: 'string', const: resource.name },
      ...idProperty(resource, mode),
      attributes: {
        type: 'object',
        properties: attributes,
        additionalProperties: false,
        ...(requiredAttributes.length > 0 ? { required: requiredAttributes } : {}),
      },
    },
  };
  if (Object.keys(relationships).length > 0) {
    (data.properties as Record<string, JsonSchema>).relationships = {
      type: 'object',
      properties: relationships,
      additionalProperties: false,
    };
  }
  if (eitherWay.length > 0) data.allOf = eitherWay;
  return {
    type: 'object',
    description,
    allOf: [schemaRef(JSON_API_DOCUMENT_NAME)],
    required: ['data'],
    properties: { data },
  };
}
