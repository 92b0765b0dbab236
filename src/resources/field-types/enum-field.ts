import { textualType } from './field-type.ts';

export const enumField = textualType(
  'enum',
  (field) => ({ type: 'string', enum: field.values ?? [] }),
  (raw, field) => (field.values?.includes(raw) ? undefined : `expected one of ${(field.values ?? []).join(', ')}`),
  new Set(['values']),
);
