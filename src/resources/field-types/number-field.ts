import { COMPARISON_OPERATORS } from '../../config/filter-operators.ts';
import { BOUND_ATTRIBUTES, identity, numberBounds, type FieldType } from './field-type.ts';

export const numberField: FieldType = {
  name: 'number',
  storage: 'real',
  valueSchema: (field) => ({ type: 'number', ...numberBounds(field) }),
  normalize: identity,
  parse(raw) {
    const value = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(value)) throw new Error('expected a number');
    return value;
  },
  operators: new Set(COMPARISON_OPERATORS),
  attributes: BOUND_ATTRIBUTES,
  sortable: true,
};
