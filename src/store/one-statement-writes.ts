// Record writes that go with their event in one statement that commits by itself, each at the version of
// the row read before it, where every statement is a round trip worth saving (PostgreSQL:
// postgres/one-statement-writer.ts). The store offers them or not (Store.oneStatementWriter); records/
// decides when a write may take that path.
import type { RawBuilder } from 'kysely';
import type { StorageKind } from './storage-kind.ts';
import type { TableRows } from './write-statements.ts';

type Row = Record<string, unknown>;

/** A row that must exist for a conditional change to apply: `id` in `table`, not soft-deleted when `live`. */
export interface RequiredRow {
  table: string;
  id: unknown;
  live: boolean;
}

/**
 * The change at the head of a conditional statement: an insert that applies only if its required rows
 * exist, or an update or delete of the row still at the version read (OneStatementWriter.rowVersion,
 * which every update and re-insert of a row changes) whose required rows exist.
 */
export type ConditionalChange =
  | { kind: 'insert'; table: string; row: Row; requires: readonly RequiredRow[] }
  | { kind: 'update'; table: string; id: string; version: string; values: Row; requires: readonly RequiredRow[] }
  | { kind: 'delete'; table: string; id: string; version: string };

/** A conditional change with the rows to write along with it (its event's first). */
export interface ChangeWithRows {
  change: ConditionalChange;
  parts: readonly TableRows[];
}

/** Which storage kind a column has (a resource's storageOf). */
export interface ColumnStorage {
  storageOf(column: string): StorageKind | undefined;
}

export interface OneStatementWriter {
  /** The row's version, selected with a write's target (as text) for its conditional change. */
  readonly rowVersion: RawBuilder<string>;
  /**
   * The row the database will give back for an insert of `encoded` (its `columns`), worked out before it
   * is sent, so the event written in the same statement shows the record as stored.
   */
  rowAsStored(storage: ColumnStorage, columns: readonly string[], encoded: Row): Row;
  /** Inserts `encoded` into `table` with `parts` (the event's rows first); answers its row (`returning` columns). */
  create(table: string, encoded: Row, parts: TableRows[], returning: readonly string[]): Promise<Row[]>;
  /** Makes `change` with `parts` if its conditions hold: its row (`returning` columns), or none. */
  change(change: ConditionalChange, parts: TableRows[], returning: readonly string[]): Promise<Row[]>;
}

/** What each statement answers besides the record's row (the event row's NOTIFY), read when a statement is built. */
export type StatementReturning = () => { sql: string } | undefined;
