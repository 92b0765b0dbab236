// Whether a field's `default` is a value the field accepts: the same JSON Schema keywords and
// formats (ajv-formats) the resource validators use, so a default can never fail its own create.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { ajvLinearRegExp } from '../tools/linear-regex.ts';
import type { FieldDefinition } from './config-types.ts';
import { HTTP_URL_MESSAGE, HTTP_URL_PATTERN, urlSchema } from '../resources/field-types/url-field.ts';

// ajv-formats ships CommonJS; under ESM its default export is the module object.
type AddFormats = typeof addFormatsModule.default;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ?? addFormatsModule) as AddFormats;
const ajv = new Ajv2020({ allErrors: true, strict: false, code: { regExp: ajvLinearRegExp } });
addFormats(ajv);

/** Default maxLength of `string` fields (docs/configuration.md). */
export const STRING_MAX_LENGTH = 255;

function lengthBounds(field: FieldDefinition): Record<string, unknown> {
  const schema: Record<string, unknown> = {};
  if (field.minLength !== undefined) schema.minLength = field.minLength;
  if (field.maxLength !== undefined) schema.maxLength = field.maxLength;
  if (field.pattern !== undefined) schema.pattern = field.pattern;
  return schema;
}

function numberBounds(field: FieldDefinition): Record<string, unknown> {
  const schema: Record<string, unknown> = {};
  if (field.minimum !== undefined) schema.minimum = field.minimum;
  if (field.maximum !== undefined) schema.maximum = field.maximum;
  return schema;
}

function valueSchema(field: FieldDefinition): Record<string, unknown> {
  switch (field.type) {
    case 'string':
      return { type: 'string', maxLength: STRING_MAX_LENGTH, ...lengthBounds(field) };
    case 'text':
      return { type: 'string', ...lengthBounds(field) };
    case 'email':
      return { type: 'string', format: 'email', ...lengthBounds(field) };
    case 'url':
      return urlSchema(field);
    case 'integer':
      return { type: 'integer', minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER, ...numberBounds(field) };
    case 'number':
      return { type: 'number', ...numberBounds(field) };
    case 'boolean':
      return { type: 'boolean' };
    case 'datetime':
      return { type: 'string', format: 'date-time' };
    case 'date':
      return { type: 'string', format: 'date' };
    case 'uuid':
    case 'relation':
      return { type: 'string', format: 'uuid' };
    case 'enum':
      return { type: 'string', enum: field.values ?? [] };
    case 'json':
      return {};
  }
}

/** Why `field.default` is not a value of the field, or undefined when it is (or there is none). */
export function checkFieldDefault(field: FieldDefinition): string | undefined {
  const value = field.default;
  if (value === undefined) return undefined;
  if (value === null) {
    const nullable = field.nullable ?? field.required !== true;
    return nullable ? undefined : 'null is not allowed: the field cannot be null';
  }
  let check;
  try {
    check = ajv.compile(valueSchema(field));
  } catch {
    return undefined; // bounds of the wrong shape: the schema check reports them
  }
  if (check(value)) return undefined;
  const reasons = (check.errors ?? []).map((e) =>
    e.keyword === 'enum'
      ? `must be one of: ${(field.values ?? []).join(', ')}`
      : e.keyword === 'pattern' && e.params.pattern === HTTP_URL_PATTERN
        ? HTTP_URL_MESSAGE
        : (e.message ?? 'is invalid'),
  );
  return `${JSON.stringify(value)} is not a valid ${field.type} value: ${[...new Set(reasons)].join('; ')}`;
}
