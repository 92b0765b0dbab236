// The page statement of a keyset page: the list's select past the cursor, in the order read, one row
// more than the page (whether another follows, without a second query). Where the first sort key's
// empty values follow the cursor, the rows before them and the empty ones are read as two arms, each
// from an index at its start, and joined in order (keyset-order.ts).
import type { RawBuilder, SelectQueryBuilder, SqlBool } from 'kysely';
import type { Db, DynamicSchema } from '../store/store-dialect.ts';
import type { FilterNode } from '../model/filter-node.ts';
import { pastCursor, readOrder } from './keyset-order.ts';
import type { KeysetPage, ListQuery, SortKey } from './list-query.ts';

type Row = Record<string, unknown>;
type Select = SelectQueryBuilder<DynamicSchema, string, Row>;

function ordered<S extends { orderBy(field: string, direction: 'asc' | 'desc'): S }>(
  select: S,
  order: readonly SortKey[],
): S {
  let out = select;
  for (const key of order) out = out.orderBy(key.field, key.descending ? 'desc' : 'asc');
  return out;
}

export function keysetSelect(
  db: Db,
  select: Select,
  page: KeysetPage,
  query: ListQuery,
  compile: (arm: FilterNode) => RawBuilder<SqlBool>,
  nullsSortFirst: boolean,
): Select {
  const order = readOrder(query.sort, page);
  const size = query.limit + 1;
  if (!page.values) return ordered(select, order).limit(size);
  const [first, second] = pastCursor(order, page.values, nullsSortFirst);
  const arm = (condition: FilterNode) => ordered(select.where(compile(condition)), order).limit(size);
  if (!second) return arm(first!);
  const joined = db
    .selectFrom(arm(first!).as('before_empty'))
    .selectAll()
    .unionAll(db.selectFrom(arm(second).as('empty')).selectAll()) as unknown as Select; // same columns; Kysely types the union by its derived tables
  return ordered(joined, order).limit(size);
}
