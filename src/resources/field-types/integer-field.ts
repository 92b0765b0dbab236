import { COMPARISON_OPERATORS } from '../../config/filter-operators.ts';
import { BOUND_ATTRIBUTES, identity, numberBounds, type FieldType } from './field-type.ts';

export const integerField: FieldType = {
  name: 'integer',
  storage: 'integer',
  valueSchema: (field) => ({
    type: 'integer',
    minimum: Number.MIN_SAFE_INTEGER,
    maximum: Number.MAX_SAFE_INTEGER,
    ...numberBounds(field),
  }),
  normalize: identity,
  parse(raw) {
    if (!/^-?\d{1,16}$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw new Error('expected an integer');
    return Number(raw);
  },
  operators: new Set(COMPARISON_OPERATORS),
  attributes: BOUND_ATTRIBUTES,
  sortable: true,
};
