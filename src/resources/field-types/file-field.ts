// `file` (one uploaded file) and `files` (a list of up to maxCount): stored as JSON metadata
// (file-metadata.ts); the bytes live in storage (src/files/). Filtered only by presence.
import type { FieldDefinition } from '../../config/config-types.ts';
import { FILE_DEFAULTS } from '../../config/files-settings.ts';
import { identity, type FieldType, type JsonSchema, type TypeSpecificAttribute } from './field-type.ts';

const FILE_ATTRIBUTES: ReadonlySet<TypeSpecificAttribute> = new Set(['maxSize', 'accept', 'thumbs', 'protected']);

/** The metadata as stored and as events carry it; documents add `url` (where to download it). */
export const FILE_METADATA_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'name', 'size', 'type', 'sha256'],
  additionalProperties: false,
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    size: { type: 'integer', minimum: 0 },
    type: { type: 'string' },
    sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
  },
};

export function maxCountOf(field: FieldDefinition): number {
  return field.maxCount ?? FILE_DEFAULTS.maxCount;
}

export function maxSizeOf(field: FieldDefinition): number {
  return field.maxSize ?? FILE_DEFAULTS.maxSize;
}

function notQueryable(): never {
  throw new Error('file fields are filtered only with is_null and is_not_null');
}

export const fileField: FieldType = {
  name: 'file',
  storage: 'json',
  valueSchema: () => structuredClone(FILE_METADATA_SCHEMA),
  normalize: identity,
  parse: notQueryable,
  operators: new Set(['is_null', 'is_not_null']),
  attributes: FILE_ATTRIBUTES,
  sortable: false,
};

export const filesField: FieldType = {
  name: 'files',
  storage: 'json',
  valueSchema: (field) => ({
    type: 'array',
    maxItems: maxCountOf(field),
    items: structuredClone(FILE_METADATA_SCHEMA),
  }),
  normalize: identity,
  parse: notQueryable,
  operators: new Set(['is_null', 'is_not_null']),
  attributes: new Set([...FILE_ATTRIBUTES, 'maxCount']),
  sortable: false,
};

export function isFileType(definition: FieldDefinition): boolean {
  return definition.type === 'file' || definition.type === 'files';
}
