// The key of a table's n-th newest row, found in steps of at most STEP_ROWS rows with a turn of the
// event loop between them. One `order by key desc limit 1 offset n-1` walks n index entries in a single
// statement; on SQLite that runs on the event loop, and a retention pass asking for the millionth
// newest row held every request for as long as the walk took (hundreds of ms at 100,000 rows).
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { Db, DynamicSchema } from './store-dialect.ts';

/** Rows one statement steps over: a few milliseconds of SQLite's time. */
export const STEP_ROWS = 10_000;

export interface NthNewestOptions {
  table: string;
  /** A key that grows with age: rows are counted from its highest value down. */
  key: string;
  n: number;
  /** Only rows matching this are counted. */
  where?: (eb: ExpressionBuilder<DynamicSchema, string>) => Expression<SqlBool>;
  /** Rows per statement (tests pass a small one). */
  stepRows?: number;
}

/** The key of the n-th newest row (n >= 1), or undefined when there are fewer than n rows. */
export async function nthNewestKey(db: Db, options: NthNewestOptions): Promise<unknown> {
  const { table, key, where } = options;
  const stepRows = options.stepRows ?? STEP_ROWS;
  let remaining = options.n;
  let below: unknown;
  for (;;) {
    const step = Math.min(remaining, stepRows);
    let query = db.selectFrom(table).select(key);
    if (where) query = query.where(where);
    if (below !== undefined) query = query.where(key, '<', below);
    const row = await query
      .orderBy(key, 'desc')
      .limit(1)
      .offset(step - 1)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    below = row[key];
    remaining -= step;
    if (remaining === 0) return below;
    await nextTurn();
  }
}
