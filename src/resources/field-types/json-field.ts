// Any JSON value; filtered only by presence and containment (an array element or a scalar inside).
import { identity, NO_ATTRIBUTES, type FieldType } from './field-type.ts';

export const jsonField: FieldType = {
  name: 'json',
  storage: 'json',
  valueSchema: () => ({}),
  normalize: identity,
  parse(raw) {
    try {
      return JSON.parse(raw);
    } catch {
      return raw;
    }
  },
  operators: new Set(['is_null', 'is_not_null', 'contains']),
  attributes: NO_ATTRIBUTES,
  sortable: false,
};
