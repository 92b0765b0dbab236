// Chooses the dialect from a database URL (`sqlite:PATH`, `postgres://…`) and opens it.
import type Database from 'better-sqlite3';
import type { CompiledQuery } from 'kysely';
import type pg from 'pg';
import { openSqlite } from './sqlite/open-sqlite.ts';
import { sqliteDialect } from './sqlite/sqlite-dialect.ts';
import { GroupCommit } from './sqlite/group-commit.ts';
import { openPostgres } from './postgres/open-postgres.ts';
import { postgresDialect } from './postgres/postgres-dialect.ts';
import { postgresCommitSignalling } from './postgres/postgres-notifier.ts';
import { PostgresOneStatementWriter } from './postgres/one-statement-writer.ts';
import type { OneStatementWriter, StatementReturning } from './one-statement-writes.ts';
import { PostgresBatchedInsertWriter } from './postgres/batched-insert-writer.ts';
import type { BatchedInsertWriter } from './batched-inserts.ts';
import type { Db, StoreDialect } from './store-dialect.ts';
import { CommitSignal } from './commit-signal.ts';

export interface Store {
  readonly db: Db;
  readonly dialect: StoreDialect;
  readonly url: string;
  /** The driver handle the identity component is given (same database, its own tables). */
  readonly driver: { kind: 'sqlite'; database: Database.Database } | { kind: 'postgres'; pool: pg.Pool };
  /** A read run synchronously when the driver can (SQLite outside a transaction), else undefined. */
  readonly readNow: (query: CompiledQuery) => Record<string, unknown>[] | undefined;
  /**
   * Runs a record write in a transaction and resolves once it has committed. On SQLite the writes that
   * arrive together share one transaction and one commit (group commit, group-commit.ts), and `work`
   * may run a second time after its group was rolled back for another write's failure: it must leave
   * nothing behind outside the transaction that a second run would duplicate.
   */
  readonly transact: <T>(work: (trx: Db) => Promise<T>) => Promise<T>;
  /** Rows of a compiled statement run on `db` (a transaction from `transact`, or the database). */
  readonly executeIn: (db: Db, query: CompiledQuery) => Record<string, unknown>[] | Promise<Record<string, unknown>[]>;
  /** Wake-on-commit: outbox inserts that tell the deployment's other processes when they commit. */
  readonly commitSignal: CommitSignal;
  /**
   * Where a write with its event is worth making in one statement (PostgreSQL: each statement is a round
   * trip), a writer of such statements; `returning` is read as each statement is built. Undefined: every
   * write goes through `transact`.
   */
  readonly oneStatementWriter?: (returning: StatementReturning) => OneStatementWriter;
  /**
   * Where a batch of writes is worth sending as few multi-row inserts (PostgreSQL: each statement is a
   * round trip), a writer of them; `returning` is read as each statement is built. Undefined: a batch
   * writes each create as it comes (SQLite, whose statements are calls in the process).
   */
  readonly batchedInserts?: (returning: StatementReturning) => BatchedInsertWriter;
  close(): Promise<void>;
}

export function isPostgresUrl(url: string): boolean {
  return url.startsWith('postgres://') || url.startsWith('postgresql://');
}

/** `warn` is told, one line each, what the store had to give up when opening (a pg it cannot build on). */
export function createStore(url: string, warn?: (message: string) => void): Store {
  if (isPostgresUrl(url)) {
    const { db, pool } = openPostgres(url, undefined, warn ? { warn } : {});
    const transact = <T>(work: (trx: Db) => Promise<T>) => db.transaction().execute(work);
    const executeIn = (on: Db, query: CompiledQuery) =>
      on.executeQuery<Record<string, unknown>>(query).then((result) => result.rows);
    const commitSignal = new CommitSignal(postgresCommitSignalling(url));
    const oneStatementWriter = (returning: StatementReturning) =>
      new PostgresOneStatementWriter(db, executeIn, returning);
    const batchedInserts = (returning: StatementReturning) => new PostgresBatchedInsertWriter(db, executeIn, returning);
    return {
      db,
      dialect: postgresDialect,
      url,
      driver: { kind: 'postgres', pool },
      readNow: () => undefined,
      transact,
      executeIn,
      commitSignal,
      oneStatementWriter,
      batchedInserts,
      close: () => db.destroy(),
    };
  }
  const path = url.startsWith('sqlite:') ? url.slice('sqlite:'.length) : url;
  const { db, raw, readNow, executeIn, walCatchUp, close } = openSqlite(path || ':memory:');
  const groups = new GroupCommit(db, () => raw.inTransaction, walCatchUp, executeIn);
  const transact = <T>(work: (trx: Db) => Promise<T>) => groups.run(work);
  return {
    db,
    dialect: sqliteDialect,
    url,
    driver: { kind: 'sqlite', database: raw },
    readNow,
    transact,
    executeIn,
    commitSignal: new CommitSignal(),
    oneStatementWriter: undefined,
    batchedInserts: undefined,
    close,
  };
}
