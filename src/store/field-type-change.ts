// Whether a field's stored values survive a change of its definition, judged by the field types (not the
// column types: on SQLite an integer and a boolean share a column type, yet 5 read as a boolean is true).
import type { FieldDefinition } from '../config/config-types.ts';

export type FieldTypeChange =
  | { kind: 'none' }
  /** Every stored value means the same under the new type (integer → number, string → text). */
  | { kind: 'widen' }
  /** Stored values could be lost or read differently: applied only when destruction is allowed. */
  | { kind: 'reinterpret'; reason: string };

/** Types whose every value is also a valid `text` value with the same meaning. */
const FITS_IN_TEXT = new Set(['string', 'email', 'url', 'uuid', 'enum']);

export function describeFieldType(field: FieldDefinition): string {
  return field.type === 'relation' ? `relation to ${field.resource ?? '?'}` : field.type;
}

export function fieldTypeChange(before: FieldDefinition, after: FieldDefinition): FieldTypeChange {
  if (before.type === after.type) {
    if (before.type === 'relation' && before.resource !== after.resource) {
      return {
        kind: 'reinterpret',
        reason: `stored ids are of ${before.resource ?? '?'} records, not ${after.resource ?? '?'} ones`,
      };
    }
    return { kind: 'none' };
  }
  if (before.type === 'integer' && after.type === 'number') return { kind: 'widen' };
  if (after.type === 'text' && FITS_IN_TEXT.has(before.type)) return { kind: 'widen' };
  return { kind: 'reinterpret', reason: `stored ${before.type} values cannot be kept as ${after.type} values` };
}
