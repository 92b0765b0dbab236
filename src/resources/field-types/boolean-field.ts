import { identity, NO_ATTRIBUTES, type FieldType } from './field-type.ts';

export const booleanField: FieldType = {
  name: 'boolean',
  storage: 'boolean',
  valueSchema: () => ({ type: 'boolean' }),
  normalize: identity,
  parse(raw) {
    if (raw === 'true' || raw === '1') return true;
    if (raw === 'false' || raw === '0') return false;
    throw new Error('expected true or false');
  },
  operators: new Set(['eq', 'neq', 'in', 'nin', 'is_null', 'is_not_null']),
  attributes: NO_ATTRIBUTES,
  sortable: true,
};
