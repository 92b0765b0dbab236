// The filter operators, listed once: the config schema, the field types (which operators each takes)
// and the list query's URL parameters all read this list.

/** Every operator of the filter grammar (`{ field: { op: value } }`), in the order the config schema lists them. */
export const FILTER_OPERATORS = [
  'eq',
  'neq',
  'lt',
  'lte',
  'gt',
  'gte',
  'in',
  'nin',
  'is_null',
  'is_not_null',
  'contains',
  'like',
  'ilike',
  'regex',
] as const;

export type FilterOperator = (typeof FILTER_OPERATORS)[number];

/** Operators that compare with a value or test for null: every type with an order takes them. */
export const COMPARISON_OPERATORS: readonly FilterOperator[] = [
  'eq',
  'neq',
  'gt',
  'gte',
  'lt',
  'lte',
  'in',
  'nin',
  'is_null',
  'is_not_null',
];

/** Operators on text: the comparisons, then patterns and containment. */
export const TEXT_OPERATORS: readonly FilterOperator[] = [
  ...COMPARISON_OPERATORS,
  'like',
  'ilike',
  'contains',
  'regex',
];

/**
 * Operators a list query takes as `field__op` parameters: containment and regex are left to permission
 * rules, where the value is the config author's and not a caller's.
 */
export const LIST_QUERY_OPERATORS: readonly FilterOperator[] = TEXT_OPERATORS.filter(
  (op) => op !== 'contains' && op !== 'regex',
);
