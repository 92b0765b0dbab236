// meta.total on SQLite without holding the event loop. SQLite runs a statement on the event loop, and a
// list whose count must be taken again (after any write to its resource) counted in one statement: at a
// million rows the benchmark's filtered count held every other request for 200-320 ms. A count that
// proves slow is from then on taken STEP_ROWS rowids per statement, with a turn of the loop between,
// reading the table in rowid order (`not indexed`): 147-167 ms in all for that count, at most 1.9 ms
// per statement. Counts stay whole until one is slow: an index that selects a few rows counts them in
// well under a millisecond, where a scan in steps would read the whole table.
import { sql, type CompiledQuery, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { DynamicSchema } from '../store-dialect.ts';
import { STEP_ROWS } from '../nth-newest-key.ts';
import { inRowidSteps } from './rowid-steps.ts';

/** A whole count that took this long is taken in steps from then on. */
export const SLOW_COUNT_MS = 20;

type Count = CompiledQuery<{ total: number }>;
type End = CompiledQuery<{ at: number }>;

/** How one list's count is taken; `stepped` is learned from the first slow whole count. */
export interface CountPlan {
  readonly whole: Count;
  /** The count within `_rowid_ >= ? and _rowid_ < ?` (its last two parameters), reading in rowid order. */
  readonly range: Count;
  readonly first: End;
  readonly last: End;
  stepped: boolean;
}

/** `conditions` are the count's where clauses (each complete in itself); `whole` the count as compiled. */
export function countPlanOf(
  db: Kysely<DynamicSchema>,
  table: string,
  conditions: readonly RawBuilder<SqlBool>[],
  whole: Count,
): CountPlan {
  const where =
    conditions.length > 0
      ? sql`${sql.join(
          conditions.map((condition) => sql`(${condition})`),
          sql` and `,
        )} and `
      : sql``;
  // _rowid_: a field cannot be named so (names start with a letter), so it is always the row's own id.
  const end = (direction: RawBuilder<unknown>) =>
    sql<{ at: number }>`select _rowid_ as "at" from ${sql.table(table)} order by _rowid_ ${direction} limit 1`.compile(
      db,
    );
  return {
    whole,
    range: sql<{
      total: number;
    }>`select count(*) as "total" from ${sql.table(table)} not indexed where ${where}_rowid_ >= ${0} and _rowid_ < ${0}`.compile(
      db,
    ),
    first: end(sql`asc`),
    last: end(sql`desc`),
    stepped: false,
  };
}

export interface CountOptions {
  stepRows?: number;
  slowMs?: number;
}

/** Counts by `plan`: whole, timed, until a whole count is slow; in steps after that. */
export async function countByPlan(
  read: <R>(query: CompiledQuery<R>) => Promise<R[]>,
  plan: CountPlan,
  options: CountOptions = {},
): Promise<number> {
  if (!plan.stepped) {
    const started = performance.now();
    const [row] = await read(plan.whole);
    if (performance.now() - started >= (options.slowMs ?? SLOW_COUNT_MS)) plan.stepped = true;
    return Number(row?.total ?? 0);
  }
  const [first] = await read(plan.first);
  const [last] = await read(plan.last);
  if (first === undefined || last === undefined) return 0;
  const fixed = plan.range.parameters.slice(0, -2);
  let total = 0;
  await inRowidSteps(
    { first: Number(first.at), last: Number(last.at) },
    options.stepRows ?? STEP_ROWS,
    async (from, to) => {
      const [row] = await read<{ total: number }>({ ...plan.range, parameters: [...fixed, from, to] });
      total += Number(row?.total ?? 0);
    },
  );
  return total;
}
