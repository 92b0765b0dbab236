// The order and the "past the cursor" condition of a keyset page (docs/records.md, "Keyset pages").
// The list's order is its sort keys then the id, which makes it total; a page before the cursor reads
// the order backwards and turns the rows round afterwards. The condition is a filter tree, compiled like
// any filter, so every cursor value is a bound parameter.
import type { FilterNode } from '../model/filter-node.ts';
import type { KeysetPage, SortKey } from './list-query.ts';

const NEVER: FilterNode = { kind: 'constant', value: false };

/** The keys a list is ordered by: its sort, then the id in the direction of the first key. */
export function orderKeys(sort: readonly SortKey[]): SortKey[] {
  return [...sort, { field: 'id', descending: sort[0]?.descending ?? false }];
}

/** The order a keyset page is read in: the list's, or the reverse for a page before the cursor. */
export function readOrder(sort: readonly SortKey[], page: KeysetPage): SortKey[] {
  const keys = orderKeys(sort);
  return page.side === 'after' ? keys : keys.map((key) => ({ field: key.field, descending: !key.descending }));
}

/** System columns are never empty: no NULL cases for them. */
const NEVER_NULL: ReadonlySet<string> = new Set(['id', 'created_at', 'updated_at']);

/**
 * Rows strictly past `values` in the order `keys` (as read), where NULL sorts first in an ascending
 * order when `nullsSortFirst` (SQLite) and last otherwise (PostgreSQL), mirroring each database's ORDER BY:
 *
 *   k1 past c1, or k1 = c1 and (k2 past c2, or k2 = c2 and (… id past c_id))
 *
 * where "past" takes in the empty values when they come after the cursor's. Given as one or two arms,
 * each a condition the database can answer from an index starting at the cursor, so a deep page costs
 * what the first does: a range on the first key (k1 >= c1) beside the exact condition; and when that
 * key's empty values follow the cursor, a second arm with them (k1 is null), read after the first.
 */
export function pastCursor(
  keys: readonly SortKey[],
  values: readonly unknown[],
  nullsSortFirst: boolean,
): FilterNode[] {
  const nullsLastIn = (key: SortKey) =>
    !NEVER_NULL.has(key.field) && (key.descending ? nullsSortFirst : !nullsSortFirst);
  const condition = (
    field: string,
    op: 'gt' | 'lt' | 'gte' | 'lte' | 'eq' | 'is_null' | 'is_not_null',
    value: unknown = null,
  ): FilterNode => ({ kind: 'condition', field, op, value });
  const or = (nodes: FilterNode[]): FilterNode => (nodes.length === 1 ? nodes[0]! : { kind: 'or', nodes });
  const and = (nodes: FilterNode[]): FilterNode => (nodes.length === 1 ? nodes[0]! : { kind: 'and', nodes });

  const strictlyPast = (key: SortKey, value: unknown, withNulls: boolean): FilterNode => {
    if (value === null) return nullsLastIn(key) ? NEVER : condition(key.field, 'is_not_null');
    const beyond = condition(key.field, key.descending ? 'lt' : 'gt', value);
    return withNulls && nullsLastIn(key) ? or([beyond, condition(key.field, 'is_null')]) : beyond;
  };
  const equal = (key: SortKey, value: unknown): FilterNode =>
    value === null ? condition(key.field, 'is_null') : condition(key.field, 'eq', value);
  const past = (i: number, withNulls = true): FilterNode => {
    const key = keys[i]!;
    const value = values[i] ?? null;
    const strictly = strictlyPast(key, value, withNulls);
    if (i === keys.length - 1) return strictly;
    const rest = and([equal(key, value), past(i + 1)]);
    return strictly === NEVER ? rest : or([strictly, rest]);
  };

  const first = keys[0]!;
  const firstValue = values[0] ?? null;
  if (firstValue === null) return [past(0)];
  const range = condition(first.field, first.descending ? 'lte' : 'gte', firstValue);
  const beforeNulls = keys.length === 1 ? past(0, false) : and([range, past(0, false)]);
  return nullsLastIn(first) ? [beforeNulls, condition(first.field, 'is_null')] : [beforeNulls];
}
