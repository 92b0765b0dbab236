// ISO 8601 date-time with an offset; stored and returned in UTC with milliseconds.
import { COMPARISON_OPERATORS } from '../../config/filter-operators.ts';
import { NO_ATTRIBUTES, type FieldType } from './field-type.ts';

const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

export function toUtcIso(raw: string): string {
  if (!ISO_DATETIME.test(raw)) throw new Error('expected an ISO 8601 date-time with a time zone');
  const date = new Date(raw);
  if (Number.isNaN(date.getTime())) throw new Error('expected a valid date-time');
  // Years 0001-9999 in UTC: PostgreSQL has no year 0, and ISO strings outside them no longer sort as text.
  const year = date.getUTCFullYear();
  if (year < 1 || year > 9999) throw new Error('expected a date-time from year 0001 to 9999 (in UTC)');
  return date.toISOString();
}

export const datetimeField: FieldType = {
  name: 'datetime',
  storage: 'timestamp',
  valueSchema: () => ({ type: 'string', format: 'date-time' }),
  normalize: (value) => (typeof value === 'string' ? toUtcIso(value) : value),
  parse: (raw) => toUtcIso(raw),
  operators: new Set(COMPARISON_OPERATORS),
  attributes: NO_ATTRIBUTES,
  sortable: true,
};
