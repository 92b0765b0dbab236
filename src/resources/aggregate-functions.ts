// Which aggregates (docs/records.md, "Aggregates") a field takes, by how it is stored: one rule that the
// aggregate parser enforces and the OpenAPI document and each resource's JSON Schema announce.
import type { StorageKind } from '../store/storage-kind.ts';

export type AggregateFunction = 'sum' | 'avg' | 'min' | 'max';
export const AGGREGATE_FUNCTIONS: readonly AggregateFunction[] = ['sum', 'avg', 'min', 'max'];

/** Kinds sum and avg add up. */
export const NUMERIC_KINDS: ReadonlySet<StorageKind> = new Set(['integer', 'real']);
/** What min and max compare, and what groups: numbers, texts, times, dates, booleans; a json value has no order. */
export const ORDERED_KINDS: ReadonlySet<StorageKind> = new Set([
  'integer',
  'real',
  'text',
  'timestamp',
  'date',
  'boolean',
]);

/** The aggregates a field stored as `kind` takes, in AGGREGATE_FUNCTIONS' order. */
export function aggregatesOf(kind: StorageKind): AggregateFunction[] {
  if (NUMERIC_KINDS.has(kind)) return [...AGGREGATE_FUNCTIONS];
  return ORDERED_KINDS.has(kind) ? ['min', 'max'] : [];
}
