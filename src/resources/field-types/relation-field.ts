// A reference to another resource's record: stores the target's id.
import { textualType } from './field-type.ts';
import { UUID_PATTERN } from './uuid-field.ts';

export const relationField = textualType(
  'relation',
  (field) => ({
    type: 'string',
    format: 'uuid',
    description: field.description ?? `id of a ${field.resource ?? ''} record`,
  }),
  (raw) => (UUID_PATTERN.test(raw) ? undefined : 'expected a UUID'),
  new Set(['resource', 'onDelete']),
);
