// Counts a SQLite table's rows by the values of one column, STEP_ROWS rowids per statement with a turn
// of the event loop between. One `group by` over the whole table held the event loop for as long as it
// read every row: 300-1,200 ms at 400,000 webhook delivery records, on every metrics scrape.
import { sql } from 'kysely';
import type { Db } from '../store-dialect.ts';
import { STEP_ROWS } from '../nth-newest-key.ts';
import { inRowidSteps, rowidEnds } from './rowid-steps.ts';

/**
 * Rows per value of `column`. Rows are counted once each (a rowid never moves); a row added or deleted
 * while the count runs may or may not be in it, as with any gauge.
 */
export async function countByInSteps(
  db: Db,
  table: string,
  column: string,
  stepRows = STEP_ROWS,
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  const ends = await rowidEnds(db, table);
  if (ends === undefined) return counts;
  await inRowidSteps(ends, stepRows, async (from, to) => {
    const { rows } = await sql<{ value: unknown; total: number }>`
      select ${sql.ref(column)} as "value", count(*) as "total" from ${sql.table(table)} not indexed
      where _rowid_ >= ${from} and _rowid_ < ${to} group by ${sql.ref(column)}`.execute(db);
    for (const row of rows) counts.set(String(row.value), (counts.get(String(row.value)) ?? 0) + Number(row.total));
  });
  return counts;
}
