// What a stream view's filter needs of a record, as equality keys: the views of a resource are indexed
// by them (live-views.ts), so an event is tested only against the views it can match, not against all
// of them. The keys are a necessary condition, never a sufficient one: a view found through them still
// tests the record with its full predicate, so the index can only skip views that would say no.
import type { FilterNode } from '../model/filter-node.ts';
import type { RecordValues } from '../model/record-values.ts';
import type { Resource } from '../resources/resource.ts';

/** A field's storage kind, as the resource tells it (stream/ reads resources, not the store). */
export type StorageKind = NonNullable<ReturnType<Resource['storageOf']>>;

/**
 * Field → keys: a record the filter matches has, in at least one of these fields, a value whose key
 * (`recordIndexKey`) is among that field's keys. Empty when the filter matches no record at all.
 */
export type FilterIndexKeys = Map<string, Set<string>>;

/** Storage kinds whose equality (filter-to-predicate.ts `compareColumn`) a string key can stand for. */
const INDEXABLE = new Set<StorageKind>(['text', 'date', 'integer', 'real', 'boolean', 'timestamp']);

/** The index keys of a filter, or null when it has no equality condition every match must meet. */
export function filterIndexKeys(node: FilterNode, resource: Resource): FilterIndexKeys | null {
  switch (node.kind) {
    case 'constant':
      // A filter that never matches needs nothing to be skipped; one that always matches cannot be.
      return node.value ? null : new Map();
    case 'not':
      return null;
    case 'and': {
      // Any one part's keys will do: the one with the fewest keys skips the most.
      let best: FilterIndexKeys | null = null;
      for (const part of node.nodes) {
        const keys = filterIndexKeys(part, resource);
        if (keys !== null && (best === null || keyCount(keys) < keyCount(best))) best = keys;
      }
      return best;
    }
    case 'or': {
      const union: FilterIndexKeys = new Map();
      for (const part of node.nodes) {
        const keys = filterIndexKeys(part, resource);
        if (keys === null) return null;
        for (const [field, set] of keys) {
          const into = union.get(field) ?? new Set<string>();
          for (const key of set) into.add(key);
          union.set(field, into);
        }
      }
      return union;
    }
    case 'condition':
      return conditionKeys(node.field, node.op, node.value, resource);
  }
}

function conditionKeys(field: string, op: string, operand: unknown, resource: Resource): FilterIndexKeys | null {
  const kind = resource.storageOf(field);
  if (kind === undefined || !INDEXABLE.has(kind)) return null;
  const keys = new Set<string>();
  if (op === 'is_null' || (op === 'eq' && (operand === null || operand === undefined))) keys.add(NULL_KEY);
  else if (op === 'eq') addOperandKey(keys, kind, operand);
  else if (op === 'in')
    for (const item of Array.isArray(operand) ? operand : [operand]) addOperandKey(keys, kind, item);
  else return null;
  return new Map([[field, keys]]);
}

/** A null operand inside `in`, or one that reads as no value of the type (NaN), matches nothing: no key. */
function addOperandKey(keys: Set<string>, kind: StorageKind, operand: unknown): void {
  if (operand === null || operand === undefined) return;
  const key = valueKey(kind, operand);
  if (key !== null) keys.add(key);
}

const NULL_KEY = '\u0000null';

/** The key of a record's value in `field`, as the predicate reads it (a missing field is null). */
export function recordIndexKey(record: RecordValues, field: string, kind: StorageKind): string | null {
  const value = Object.hasOwn(record, field) ? (record[field] ?? null) : null;
  return value === null ? NULL_KEY : valueKey(kind, value);
}

/** Equal keys exactly when filter-to-predicate.ts finds the two values equal; null for a value equal to nothing. */
function valueKey(kind: StorageKind, value: unknown): string | null {
  switch (kind) {
    case 'integer':
    case 'real':
      return numberKey(Number(value));
    case 'timestamp':
      // Instants, whatever offset either side is written with.
      return numberKey(Date.parse(String(value)));
    case 'boolean':
      return typeof value === 'string' ? String(value === 'true' || value === '1') : String(Boolean(value));
    default:
      return `s${String(value)}`;
  }
}

/** `-0` and `0` are equal (String gives "0" for both); NaN equals nothing. */
function numberKey(n: number): string | null {
  return Number.isNaN(n) ? null : String(n);
}

function keyCount(keys: FilterIndexKeys): number {
  let count = 0;
  for (const set of keys.values()) count += set.size;
  return count;
}
