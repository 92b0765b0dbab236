import { COMPARISON_OPERATORS } from '../../config/filter-operators.ts';
import { NO_ATTRIBUTES, type FieldType } from './field-type.ts';

export function checkDate(raw: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw);
  const date = match ? new Date(`${raw}T00:00:00Z`) : undefined;
  if (!date || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== raw) {
    throw new Error('expected a date YYYY-MM-DD');
  }
  // PostgreSQL has no year 0 (1 BC is written differently), so 0000-MM-DD cannot be stored.
  if (raw.startsWith('0000')) throw new Error('expected a date from year 0001');
  return raw;
}

export const dateField: FieldType = {
  name: 'date',
  storage: 'date',
  valueSchema: () => ({ type: 'string', format: 'date' }),
  // Bodies pass the JSON Schema `date` format first, which allows year 0000.
  normalize: (value) => (typeof value === 'string' ? checkDate(value) : value),
  parse: (raw) => checkDate(raw),
  operators: new Set(COMPARISON_OPERATORS),
  attributes: NO_ATTRIBUTES,
  sortable: true,
};
