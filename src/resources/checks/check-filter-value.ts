// Whether a value in a permission filter can be of its field's type: a value that cannot (an enum value
// not in `values`, a date that does not parse) makes the rule never match, or match nothing it should.
// Uses the field types' own query-value parsers, so config and requests agree on what a value is.
import type { FieldDefinition, FilterOperator } from '../../config/config-types.ts';
import { FIELD_TYPES } from '../field-types/index.ts';

/** Operators whose value is compared with the column (patterns, needles and null tests are not). */
const COMPARED: ReadonlySet<string> = new Set<FilterOperator>(['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'in', 'nin']);

/** A session variable stands for a value known only per request. */
const SESSION_VARIABLE = /^\$(userId|role)$/;

/** Undefined when `value` can be a value of `field` under `op`; else why not. */
export function filterValueProblem(op: string, value: unknown, field: FieldDefinition): string | undefined {
  if (!COMPARED.has(op) || value === null) return undefined;
  const type = Object.hasOwn(FIELD_TYPES, field.type) ? FIELD_TYPES[field.type] : undefined;
  // json fields are compared by containment only; an unknown type is the schema's to report.
  if (!type || type.name === 'json') return undefined;
  const what = `${type.name} field`;
  if (typeof value === 'string') {
    if (SESSION_VARIABLE.test(value)) return undefined;
    try {
      type.parse(value, field);
      return undefined;
    } catch (error) {
      return `value ${JSON.stringify(value)} can never be a value of this ${what}: ${(error as Error).message}`;
    }
  }
  if (typeof value === 'number') {
    if (type.name === 'number') return undefined;
    if (type.name === 'integer')
      return Number.isInteger(value)
        ? undefined
        : `value ${value} can never be a value of this integer field: expected an integer`;
    return `value ${value} is a number; this ${what} needs ${type.name === 'boolean' ? 'true or false' : 'a string'}`;
  }
  if (typeof value === 'boolean') {
    return type.name === 'boolean'
      ? undefined
      : `value ${String(value)} is a boolean; this ${what} needs ${type.storage === 'integer' || type.storage === 'real' ? 'a number' : 'a string'}`;
  }
  return `a ${Array.isArray(value) ? 'list' : 'mapping'} can never be a value of this ${what}`;
}
