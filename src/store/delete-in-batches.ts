// Deletes the rows a query selects, a bounded batch per statement, so a large backlog never holds one
// long lock or blocks the event loop (SQLite runs on it) for long. Safe to run on several nodes at once.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import { keyInLockedBatch } from './key-in-locked-batch.ts';
import type { Db, DynamicSchema } from './store-dialect.ts';

/** A condition on the table's rows. */
export type RowCondition = (eb: ExpressionBuilder<DynamicSchema, string>) => Expression<SqlBool>;

export interface DeleteInBatchesOptions {
  table: string;
  /** The primary key: batches are taken in its order, oldest first when it grows with time. */
  key: string;
  /** The rows that may go. */
  where: RowCondition;
  batchSize: number;
  /**
   * PostgreSQL: a batch skips rows another node is deleting (SKIP LOCKED) instead of waiting for them,
   * so nodes pruning side by side neither queue nor deadlock. SQLite serialises writers anyway.
   */
  skipLocked: boolean;
  /** Asked between batches; true ends the pass early (shutdown). */
  stopped?: () => boolean;
  /** Told each batch's count as it commits, so a pass that fails later still reports what it deleted. */
  onDeleted?: (rows: number) => void;
}

/** Returns the number of rows deleted. */
export async function deleteInBatches(db: Db, options: DeleteInBatchesOptions): Promise<number> {
  const { table, key, batchSize } = options;
  let total = 0;
  for (;;) {
    let batch = db.selectFrom(table).select(key).where(options.where).orderBy(key).limit(batchSize);
    if (options.skipLocked) batch = batch.forUpdate().skipLocked();
    const remove = db.deleteFrom(table);
    // A locked batch is taken once (key-in-locked-batch.ts): never more than batchSize rows.
    const result = await (options.skipLocked
      ? remove.where(keyInLockedBatch(key, batch))
      : remove.where(key, 'in', batch)
    ).executeTakeFirst();
    const deleted = Number(result.numDeletedRows);
    total += deleted;
    if (deleted > 0) options.onDeleted?.(deleted);
    // A short batch is the last one (or another node holds the rest: the next pass takes them).
    if (deleted < batchSize || options.stopped?.() === true) return total;
    // Lets requests run between batches.
    await nextTurn();
  }
}
