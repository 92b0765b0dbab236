// The types of the fields every record has, for filters and sorts that name them.
import type { FieldType } from '../resources/field-types/index.ts';
import { uuidField } from '../resources/field-types/uuid-field.ts';
import { datetimeField } from '../resources/field-types/datetime-field.ts';

// A Map, not an object literal: a parameter named `constructor` or `toString` must not find Object's members.
const SYSTEM_TYPES: ReadonlyMap<string, FieldType> = new Map([
  ['id', uuidField],
  ['created_at', datetimeField],
  ['updated_at', datetimeField],
]);

export function systemFieldType(field: string): FieldType | undefined {
  return SYSTEM_TYPES.get(field);
}
