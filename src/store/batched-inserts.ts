// Inserts that a batch of writes (records/: RecordService.batch) sets aside and sends together, where
// each statement is a round trip worth saving (PostgreSQL: postgres/batched-insert-writer.ts): the
// rows of many creates, their outbox events and the events' deliveries in a few multi-row statements
// instead of two or more per create. The store offers it or not (Store.batchedInserts); records/
// decides which writes may be set aside.
import type { Db } from './store-dialect.ts';
import type { ColumnStorage } from './one-statement-writes.ts';
import type { TableRows } from './write-statements.ts';

type Row = Record<string, unknown>;

export interface BatchedInsertWriter {
  /**
   * The row the database will give back for an insert of `encoded` (its `columns`), worked out before it
   * is sent, so that a set-aside create can answer and build its event at once.
   */
  rowAsStored(storage: ColumnStorage, columns: readonly string[], encoded: Row): Row;
  /**
   * Inserts, inside the transaction `trx`, `signalled`'s rows (the outbox events, in order: their
   * sequence numbers follow it) and then each of `others`' rows, in as few statements as the database
   * takes. Each statement that holds outbox rows carries the commit signal. A row the database refuses
   * fails its whole statement, without saying whose row it was.
   */
  insert(trx: Db, signalled: TableRows, others: readonly TableRows[]): Promise<void>;
}
