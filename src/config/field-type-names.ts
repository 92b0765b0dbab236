// The names of the field types a definition may use, listed once: the config schema's enum, the
// FieldTypeName type and the field-type registry (src/resources/field-types/) all follow this list.
export const FIELD_TYPE_NAMES = [
  'string',
  'text',
  'integer',
  'number',
  'boolean',
  'datetime',
  'date',
  'uuid',
  'email',
  'url',
  'enum',
  'json',
  'relation',
  'file',
  'files',
] as const;

export type FieldTypeName = (typeof FIELD_TYPE_NAMES)[number];
