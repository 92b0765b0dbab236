// Work over a SQLite table in windows of rowids, with a turn of the event loop between windows: SQLite
// runs a statement on the event loop, so one statement over a large table holds every request until
// it ends. A window's statement should name the table `not indexed`: given an index that serves its
// other conditions, SQLite reads all of that index once per window instead of the window's rows.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql } from 'kysely';
import type { Db } from '../store-dialect.ts';

export interface RowidEnds {
  first: number;
  last: number;
}

/** The lowest and highest rowid of `table`, or undefined when it is empty. */
export async function rowidEnds(db: Db, table: string): Promise<RowidEnds | undefined> {
  const end = async (direction: 'asc' | 'desc') =>
    (
      await sql<{
        at: number;
      }>`select _rowid_ as "at" from ${sql.table(table)} order by _rowid_ ${sql.raw(direction)} limit 1`.execute(db)
    ).rows[0];
  const first = await end('asc');
  const last = await end('desc');
  return first === undefined || last === undefined ? undefined : { first: Number(first.at), last: Number(last.at) };
}

/** Calls `step` for each window `[from, to)` of `stepRows` rowids from `ends.first` through `ends.last`, in order. */
export async function inRowidSteps(
  ends: RowidEnds,
  stepRows: number,
  step: (from: number, to: number) => Promise<void>,
): Promise<void> {
  for (let from = ends.first; from <= ends.last; from += stepRows) {
    if (from !== ends.first) await nextTurn();
    await step(from, from + stepRows);
  }
}
