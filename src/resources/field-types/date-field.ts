import { COMPARISON, identity, type FieldType } from './field-type.ts';

export function checkDate(raw: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw);
  const date = match ? new Date(`${raw}T00:00:00Z`) : undefined;
  if (!date || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== raw) {
    throw new Error('expected a date YYYY-MM-DD');
  }
  return raw;
}

export const dateField: FieldType = {
  name: 'date',
  storage: 'date',
  valueSchema: () => ({ type: 'string', format: 'date' }),
  normalize: identity,
  parse: (raw) => checkDate(raw),
  operators: new Set(COMPARISON),
};
