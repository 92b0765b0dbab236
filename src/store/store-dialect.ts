// What differs between SQLite and PostgreSQL, behind one interface. The rest of the code asks this.
import type { CompiledQuery, Kysely, RawBuilder, Expression, SqlBool } from 'kysely';
import type { StorageKind } from './storage-kind.ts';
import type { SearchDialect } from './search-index.ts';

/** Tables are defined at run time from the config, so rows are plain records. */
export type DynamicSchema = Record<string, Record<string, unknown>>;
export type Db = Kysely<DynamicSchema>;

export interface ExistingColumn {
  name: string;
  dataType: string;
  nullable: boolean;
}

/** A foreign key as the database has it: `column` references `target`.id. */
export interface ExistingForeignKey {
  column: string;
  target: string;
  /** Lower case, as SQL writes it: restrict, cascade, set null, no action. */
  onDelete: string;
  /** The constraint's name where the database has one (PostgreSQL). */
  name?: string;
}

/** A read outside any transaction. */
export type ReadRows = <R>(query: CompiledQuery<R>) => Promise<R[]>;

/** A list's count taken the dialect's own way, planned once per compiled list (StoreDialect.planCount). */
export interface ListCount {
  take(read: ReadRows): Promise<number>;
}

/** What StoreDialect.withLockWait answers when a lock was not granted in time. */
export const LOCK_WAIT_EXCEEDED: unique symbol = Symbol('lock wait exceeded');

export interface StoreDialect {
  readonly name: 'sqlite' | 'postgres';
  /** The database's name in messages to operators. */
  readonly label: string;
  /** SQL column type for a storage kind. */
  columnType(kind: StorageKind): string;
  /** Whether an existing column's reported type fits a storage kind (a retype is destructive). */
  columnMatches(kind: StorageKind, existing: ExistingColumn): boolean;
  /** Value as written to the database. */
  encode(kind: StorageKind, value: unknown): unknown;
  /** Value as read from the database, into its JSON form. */
  decode(kind: StorageKind, value: unknown): unknown;
  /** Case-sensitive or -insensitive SQL LIKE, the same rules on every database. */
  like(column: Expression<unknown>, pattern: string, caseInsensitive: boolean): RawBuilder<SqlBool>;
  /**
   * Marks a condition that matches a large share of rows (equality on a boolean or enum field). SQLite's
   * planner otherwise takes such a condition's index, collects every match and sorts it, where walking
   * the sort's index and stopping at the page is far cheaper (a million rows: 500 ms against 0.1 ms).
   * SQLite: `likely(…)`, a hint that changes no result; PostgreSQL: unchanged (its statistics know).
   */
  common(condition: RawBuilder<SqlBool>): RawBuilder<SqlBool>;
  /** Regular-expression match. */
  regex(column: Expression<unknown>, pattern: string): RawBuilder<SqlBool>;
  /** Substring containment for text, element/subset containment for json. */
  contains(column: Expression<unknown>, kind: StorageKind, value: unknown): RawBuilder<SqlBool>;
  /**
   * How a list's count is taken where the dialect has a way of its own (SQLite: in rowid steps once a
   * whole count proves slow, sqlite/stepped-count.ts); undefined: run `whole` as it is. `conditions`
   * are the count's where clauses, each complete in itself.
   */
  planCount(
    db: Db,
    table: string,
    conditions: readonly RawBuilder<SqlBool>[],
    whole: CompiledQuery<{ total: number }>,
  ): ListCount | undefined;
  /**
   * `any(ids)` over one array parameter, where each query is a round trip worth sharing (PostgreSQL):
   * reads by id of one pass then go as one query (point-read-batcher.ts). Undefined: read one by one.
   */
  readonly idAmong: ((ids: unknown) => RawBuilder<string>) | undefined;
  /** Column names and types of an existing table, empty when it does not exist. */
  listColumns(db: Db, table: string): Promise<ExistingColumn[]>;
  /** Names of existing indexes on a table. */
  listIndexes(db: Db, table: string): Promise<string[]>;
  /** Foreign keys declared on a table's columns. */
  listForeignKeys(db: Db, table: string): Promise<ExistingForeignKey[]>;
  isUniqueViolation(error: unknown): boolean;
  isForeignKeyViolation(error: unknown): boolean;
  /** True when the error means the database cannot be reached (answer 503, not 500). */
  isConnectionError(error: unknown): boolean;
  /**
   * True when the database server answered but refused to serve (no such database, login refused):
   * the configured address or credentials are wrong, which a start-up failure says so (cli/).
   */
  isRefusedConnection(error: unknown): boolean;
  /**
   * A mark of what other connections have committed: two reads give the same mark only if no other
   * connection committed in between. With the caller's own count of its writes it lets a result (a
   * list's count) be reused while it cannot have changed. SQLite: `PRAGMA data_version` (blind to this
   * connection's own writes); PostgreSQL: the current snapshot (xmin:xmax:in-progress ids), which
   * moves with any commit, on any connection.
   */
  changeMark(db: Db): Promise<string>;
  /**
   * Runs `work` inside the transaction `trx` with every lock wait bounded by `ms`, and answers
   * LOCK_WAIT_EXCEEDED when a wait ran past it (the transaction is then unusable: it must roll back).
   * PostgreSQL: `lock_timeout` set for the transaction, then put back; its statements that wait on a
   * row another transaction has not committed yet stop waiting after `ms`. SQLite: one process owns the
   * file and its writes run one transaction at a time, so no statement waits on another's uncommitted
   * row; `work` just runs.
   */
  withLockWait<T>(trx: Db, ms: number, work: () => Promise<T>): Promise<T | typeof LOCK_WAIT_EXCEEDED>;
  /** Whether `SELECT … FOR UPDATE SKIP LOCKED` is available for claiming work. */
  readonly supportsSkipLocked: boolean;
  /**
   * Where NULL falls in an ascending ORDER BY: first on SQLite (NULL is the smallest value), last on
   * PostgreSQL (the largest); a descending order puts it at the other end. Keyset pages follow it.
   */
  readonly nullsSortFirst: boolean;
  /**
   * Whether a WITH may insert (a data-modifying WITH), so rows for several tables go in one statement,
   * one round trip (write-statements.ts, insertTogetherStatement). Where it may not (SQLite), a statement
   * costs no round trip anyway: one per table.
   */
  readonly supportsInsertInWith: boolean;
  /**
   * Whether processes on other machines share this database (a server), rather than one machine's file.
   * What every process must agree on (the identity secret) cannot then be kept in the data folder.
   */
  readonly sharedAcrossMachines: boolean;
  /**
   * Rows of a table per value of one column, over the whole table (a metrics gauge). SQLite, whose
   * statements run on the event loop, counts in steps of rowids; PostgreSQL in one statement, in its
   * own process.
   */
  countByValue(db: Db, table: string, column: string): Promise<Map<string, number>>;
  /** Full-text search: the index of a table's searchable columns and the conditions that read it. */
  readonly search: SearchDialect;
}
