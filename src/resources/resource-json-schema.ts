// The JSON Schema (draft 2020-12) of a resource's records as a caller reads them: the body of
// `GET /v1/:r/schema`, and the field schemas the OpenAPI document is built from.
import type { FieldDefinition } from '../config/config-types.ts';
import type { JsonSchema } from './field-types/index.ts';
import { maxSizeOf } from './field-types/file-field.ts';
import type { Resource, ResourceField } from './resource.ts';
import { aggregatesOf } from './aggregate-functions.ts';
import type { StorageKind } from '../store/storage-kind.ts';

export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/** How a field's schema is used: read back, written in full (create/replace), or patched. */
export type FieldSchemaUse = 'read' | 'write' | 'patch';

/** System fields as every record carries them; the server sets them, so they are read-only. */
export const SYSTEM_FIELD_SCHEMAS: Readonly<Record<'id' | 'created_at' | 'updated_at', JsonSchema>> = {
  id: {
    type: 'string',
    format: 'uuid',
    readOnly: true,
    description: 'Record identifier (UUIDv7, generated on create)',
  },
  created_at: { type: 'string', format: 'date-time', readOnly: true, description: 'When the record was created (UTC)' },
  updated_at: {
    type: 'string',
    format: 'date-time',
    readOnly: true,
    description: 'When the record last changed (UTC)',
  },
};

/** Widens a value schema so that `null` is accepted too. */
function withNull(schema: JsonSchema): JsonSchema {
  // A schema without `type` (json fields) already accepts null.
  if (typeof schema.type !== 'string') return schema;
  const widened: JsonSchema = { ...schema, type: [schema.type, 'null'] };
  // `enum` is checked independently of `type`, so null must be one of the listed values as well.
  if (Array.isArray(schema.enum)) widened.enum = [...(schema.enum as unknown[]), null];
  return widened;
}

/**
 * A file field is metadata the server writes from an upload: read-only, with the `url` reads add.
 * Written in JSON it only keeps, reorders or clears the record's own files (docs/files.md).
 */
function fileSchema(schema: JsonSchema, definition: FieldDefinition, use: FieldSchemaUse): JsonSchema {
  const type = definition.type;
  const addUrl = (metadata: JsonSchema): JsonSchema => {
    const properties = { ...(metadata.properties as Record<string, JsonSchema>) };
    properties.url = {
      type: 'string',
      description: 'Where to download it; for a protected field it carries a short-lived signed token.',
    };
    return { ...metadata, properties, required: [...(metadata.required as string[]), 'url'] };
  };
  // What an upload may be, so that a client (the console) can offer previews in a configured thumb size
  // and say which types are taken before sending.
  const limits: JsonSchema = { 'x-file': true, 'x-max-size': maxSizeOf(definition) };
  if (definition.accept !== undefined) limits['x-accept'] = [...definition.accept];
  if (definition.thumbs !== undefined) limits['x-thumbs'] = [...definition.thumbs];
  if (use === 'read') {
    const read = type === 'file' ? addUrl(schema) : { ...schema, items: addUrl(schema.items as JsonSchema) };
    return { ...read, readOnly: true, ...limits };
  }
  return { ...schema, readOnly: true, ...limits };
}

/** Schema of one declared field: the type's value schema plus what the definition adds. */
export function fieldJsonSchema(field: ResourceField, use: FieldSchemaUse = 'read'): JsonSchema {
  const definition = field.definition;
  // A value schema may hold arrays of the (frozen) definition, such as enum values; the copy keeps the
  // result a plain tree that callers may change and serialize without shared nodes.
  let schema: JsonSchema = structuredClone(field.type.valueSchema(definition));
  if (definition.description !== undefined) schema.description = definition.description;
  if (definition.type === 'relation' && definition.resource !== undefined) {
    // The table spec defaults onDelete to restrict (table-spec.ts), so the annotation says so too.
    schema['x-relation'] = { resource: definition.resource, onDelete: definition.onDelete ?? 'restrict' };
  }
  if (definition.type === 'file' || definition.type === 'files') schema = fileSchema(schema, definition, use);
  if (field.nullable) schema = withNull(schema);
  // In a patch an omitted field keeps its value, so announcing a default there would mislead.
  if (definition.default !== undefined && use !== 'patch') schema.default = structuredClone(definition.default);
  return schema;
}

/**
 * The schema of a record (`id`, readable fields, `created_at`, `updated_at`) for a caller who may
 * read `readable` (null: every field). Soft-deleted records are invisible, so `deleted_at` is absent.
 */
export function resourceJsonSchema(resource: Resource, readable: ReadonlySet<string> | null): Record<string, unknown> {
  const fields = [...resource.fields.values()].filter((f) => readable === null || readable.has(f.name));
  const properties: Record<string, JsonSchema> = { id: { ...SYSTEM_FIELD_SCHEMAS.id } };
  for (const field of fields) {
    const schema = fieldJsonSchema(field, 'read');
    annotateQueries(schema, field.storage, true);
    if (field.definition.searchable === true) schema['x-searchable'] = true;
    properties[field.name] = schema;
  }
  properties.created_at = annotateQueries({ ...SYSTEM_FIELD_SCHEMAS.created_at }, 'timestamp', false);
  properties.updated_at = annotateQueries({ ...SYSTEM_FIELD_SCHEMAS.updated_at }, 'timestamp', false);

  const schema: Record<string, unknown> = {
    $schema: JSON_SCHEMA_DIALECT,
    $id: `/v1/${resource.name}/schema`,
    title: resource.name,
  };
  if (resource.definition.description !== undefined) schema.description = resource.definition.description;
  schema.type = 'object';
  schema.properties = properties;
  schema.required = ['id', ...fields.filter((f) => f.required).map((f) => f.name), 'created_at', 'updated_at'];
  schema.additionalProperties = false;
  const groupable = fields.filter((f) => aggregatesOf(f.storage).length > 0);
  schema.$defs = { aggregates: aggregatesSchema(resource, groupable, properties) };
  if (resource.search && fields.some((f) => f.definition.searchable === true))
    schema['x-search'] = { language: resource.search.language };
  return schema;
}

/**
 * What `GET /v1/<r>/aggregate` may do with a field: `x-aggregates` lists the functions it takes (`_sum`,
 * `_avg`, `_min`, `_max`), `x-groupable` whether `_group` takes it (declared fields with an order).
 */
function annotateQueries(schema: JsonSchema, kind: StorageKind, declared: boolean): JsonSchema {
  const functions = aggregatesOf(kind);
  if (functions.length > 0) schema['x-aggregates'] = functions;
  if (declared && functions.length > 0) schema['x-groupable'] = true;
  return schema;
}

/** The attributes of one group of `GET /v1/<r>/aggregate` (type `<r>-aggregates`) for this caller. */
function aggregatesSchema(
  resource: Resource,
  groupable: readonly ResourceField[],
  properties: Readonly<Record<string, JsonSchema>>,
): JsonSchema {
  const byFunction = (fn: 'sum' | 'avg' | 'min' | 'max'): JsonSchema => {
    const named: Record<string, JsonSchema> = {};
    for (const [name, property] of Object.entries(properties)) {
      if (!(property['x-aggregates'] as string[] | undefined)?.includes(fn)) continue;
      // A sum or average of integers is a number; min and max are values of the field. Null: no row had one.
      named[name] = fn === 'min' || fn === 'max' ? withNull(stripAnnotations(property)) : { type: ['number', 'null'] };
    }
    return { type: 'object', properties: named, additionalProperties: false };
  };
  const groups: Record<string, JsonSchema> = {};
  for (const field of groupable) groups[field.name] = stripAnnotations(properties[field.name]!);
  return {
    title: `${resource.name}-aggregates`,
    description: 'The attributes of one group: the `_group` fields, `count`, and each aggregate asked for, by field.',
    type: 'object',
    properties: {
      ...groups,
      count: { type: 'integer', minimum: 0 },
      sum: byFunction('sum'),
      avg: byFunction('avg'),
      min: byFunction('min'),
      max: byFunction('max'),
    },
    additionalProperties: false,
  };
}

function stripAnnotations(schema: JsonSchema): JsonSchema {
  const {
    'x-aggregates': _functions,
    'x-groupable': _groupable,
    'x-searchable': _searchable,
    readOnly: _readOnly,
    ...rest
  } = schema;
  return structuredClone(rest);
}
