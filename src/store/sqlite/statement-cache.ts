// Kysely's SQLite driver prepares every query anew and better-sqlite3 builds each row object through
// its native API, one property at a time; for a page of 50 rows that costs more than running the query.
// Here statements are prepared once per SQL text, and a reader hands back rows as arrays that a
// function compiled once per column list turns into plain objects (the same objects, 3-4x cheaper).
import type Database from 'better-sqlite3';
import type { CompiledQuery, SqliteDatabase, SqliteStatement } from 'kysely';
import type { Db } from '../store-dialect.ts';
import type { PassReadTransaction } from './pass-read-transaction.ts';

const MAX_CACHED_STATEMENTS = 500;
/** Statements that change the schema: cached statements may then return other columns. */
const SCHEMA_CHANGE = /^\s*(?:create|alter|drop)\s/i;

type Row = Record<string, unknown>;
type RowBuilder = (values: unknown[]) => Row;

const builders = new Map<string, RowBuilder>();

/** `(values) => ({ "id": values[0], … })` for one column list; duplicate names keep the last, as objects do. */
function rowBuilder(names: readonly string[]): RowBuilder {
  const key = names.join('\u0000');
  let build = builders.get(key);
  if (!build) {
    build = new Function(
      'v',
      `return { ${names.map((name, i) => `${JSON.stringify(name)}: v[${i}]`).join(', ')} };`,
    ) as RowBuilder;
    if (builders.size >= MAX_CACHED_STATEMENTS) builders.clear();
    builders.set(key, build);
  }
  return build;
}

class CachedStatement implements SqliteStatement {
  readonly reader: boolean;
  readonly #statement: Database.Statement;
  /** Ends the pass's read transaction before this statement runs: set unless it only reads. */
  readonly #endsReads: PassReadTransaction | undefined;
  #build: RowBuilder | undefined;
  #width = -1;

  constructor(statement: Database.Statement, reads: PassReadTransaction) {
    this.#statement = statement;
    // `readonly` alone is not enough: SQLite counts BEGIN, COMMIT and SAVEPOINT as read-only, and a
    // write with RETURNING is a reader.
    this.#endsReads = statement.reader && statement.readonly ? undefined : reads;
    // A column named __proto__ would set the prototype in an object literal: such a reader keeps objects.
    this.reader = statement.reader;
    if (this.reader && !statement.columns().some((column) => column.name === '__proto__')) statement.raw(true);
  }

  all(parameters: readonly unknown[]): unknown[] {
    this.#endsReads?.end();
    const rows = this.#statement.all(parameters as unknown[]) as unknown[];
    if (!this.#statement.reader || rows.length === 0 || !Array.isArray(rows[0])) return rows;
    return (rows as unknown[][]).map(this.#builder((rows[0] as unknown[]).length));
  }

  run(parameters: readonly unknown[]) {
    this.#endsReads?.end();
    return this.#statement.run(parameters as unknown[]);
  }

  *iterate(parameters: readonly unknown[]): IterableIterator<unknown> {
    this.#endsReads?.end();
    for (const row of this.#statement.iterate(parameters as unknown[])) {
      yield Array.isArray(row) ? this.#builder(row.length)(row) : row;
    }
  }

  #builder(width: number): RowBuilder {
    // Column names are read once; a width that no longer matches means SQLite re-prepared the
    // statement after a schema change made elsewhere, so they are read again.
    if (!this.#build || width !== this.#width) {
      this.#build = rowBuilder(this.#statement.columns().map((column) => column.name));
      this.#width = width;
    }
    return this.#build;
  }
}

/**
 * The Kysely SQLite database: statements reused by SQL text. Kysely runs one query at a time here.
 * Every statement but a read ends the pass's read transaction (`reads`) before it runs.
 */
export function withStatementCache(raw: Database.Database, reads: PassReadTransaction): SqliteDatabase {
  const statements = new Map<string, CachedStatement>();
  return {
    close: () => raw.close(),
    prepare(sql) {
      if (SCHEMA_CHANGE.test(sql)) {
        statements.clear();
        // Kysely runs what it prepares at once.
        reads.end();
        return raw.prepare(sql);
      }
      let statement = statements.get(sql);
      if (!statement) {
        statement = new CachedStatement(raw.prepare(sql), reads);
        if (statements.size >= MAX_CACHED_STATEMENTS) statements.delete(statements.keys().next().value!);
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}

/**
 * Runs a read at once on the cached statement, without Kysely's connection hand-off (a lock and
 * several promise hops per query: about half the cost of a point lookup), in the pass's read
 * transaction. Not while a write's transaction is open on the connection, since a read inside it would
 * see its uncommitted rows; then it answers undefined and the caller goes through Kysely, which waits.
 */
export function sqliteReadNow(database: SqliteDatabase, reads: PassReadTransaction) {
  return (query: CompiledQuery): Record<string, unknown>[] | undefined => {
    if (!reads.enter()) return undefined;
    return database.prepare(query.sql).all(query.parameters) as Record<string, unknown>[];
  };
}

/**
 * Runs a statement at once inside a transaction that already holds the connection (a record write's):
 * Kysely's hand-off would only queue it behind that same transaction. Outside one it goes through Kysely.
 */
export function sqliteExecuteIn(raw: Database.Database, database: SqliteDatabase) {
  return (db: Db, query: CompiledQuery): Record<string, unknown>[] | Promise<Record<string, unknown>[]> => {
    if (!db.isTransaction || !raw.inTransaction)
      return db.executeQuery<Record<string, unknown>>(query).then((result) => result.rows);
    const statement = database.prepare(query.sql);
    if (statement.reader) return statement.all(query.parameters) as Record<string, unknown>[];
    statement.run(query.parameters);
    return [];
  };
}
