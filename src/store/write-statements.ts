// Inserts and updates-by-id compiled by Kysely once per table and column list, then run with new values:
// building and compiling them per request was about a tenth of a create (Kysely freezes and visits an
// operation tree for every statement). The SQL text stays the same, so the prepared statement is reused.
import { sql, type CompiledQuery, type QueryCreator } from 'kysely';
import type { Db, DynamicSchema } from './store-dialect.ts';

export type Creator = QueryCreator<DynamicSchema>;

type Row = Record<string, unknown>;

/** Distinct statements kept per database; a flood of new column lists only resets the map. */
const MAX_STATEMENTS = 500;

const cache = new WeakMap<Db, Map<string, CompiledQuery<Row>>>();

function statementsOf(db: Db): Map<string, CompiledQuery<Row>> {
  let statements = cache.get(db);
  if (!statements) {
    statements = new Map();
    cache.set(db, statements);
  }
  return statements;
}

/**
 * A compiled query whose parameters are exactly `parameters`, in that order: reused when cached, else
 * built by `build` (given the same values) and kept only if Kysely bound them one for one, in order.
 */
export function reuseStatement(
  db: Db,
  key: string,
  parameters: unknown[],
  build: () => CompiledQuery<Row>,
): CompiledQuery<Row> {
  const statements = statementsOf(db);
  const cached = statements.get(key);
  if (cached) return { ...cached, parameters };
  const compiled = build();
  const bound = compiled.parameters;
  if (bound.length === parameters.length && bound.every((value, i) => value === parameters[i])) {
    if (statements.size >= MAX_STATEMENTS) statements.clear();
    statements.set(key, compiled);
  }
  return compiled;
}

/** Kysely leaves out a column whose value is undefined (the column's default applies). */
export function definedColumns(row: Row): string[] {
  return Object.keys(row).filter((column) => row[column] !== undefined);
}

/** The rows' values in column order and a key for their columns; undefined when rows name different columns. */
function boundRows(rows: readonly Row[]): { shape: string; parameters: unknown[] } | undefined {
  const columns = definedColumns(rows[0]!);
  const shape = columns.join('\u0000');
  // Rows that differ in their columns get DEFAULT in places: compiled as they come, not reused.
  if (rows.some((row) => definedColumns(row).join('\u0000') !== shape)) return undefined;
  const parameters: unknown[] = [];
  for (const row of rows) for (const column of columns) parameters.push(row[column]);
  return { shape: `${rows.length}\u0000${shape}`, parameters };
}

/**
 * `insert into table (columns) values (…), … [returning …]`. `returning` names columns, or is one
 * SQL expression of the service's own (never caller input: it is written into the statement as is).
 */
export function insertStatement(
  db: Db,
  table: string,
  rows: readonly Row[],
  returning: readonly string[] | { sql: string } = [],
): CompiledQuery<Row> {
  const build = () => {
    const insert = db.insertInto(table).values(rows as Row[]);
    if ('sql' in returning)
      return insert.returning(sql.raw(returning.sql).as('returned')).compile() as CompiledQuery<Row>;
    return (returning.length > 0 ? insert.returning(returning) : insert).compile() as CompiledQuery<Row>;
  };
  const bound = boundRows(rows);
  if (!bound) return build();
  const returned = 'sql' in returning ? `(${returning.sql})` : returning.join('\u0000');
  return reuseStatement(db, `i\u0000${table}\u0000${bound.shape}\u0000${returned}`, bound.parameters, build);
}

/** Rows for one table, written along with another table's rows (see insertTogetherStatement). */
export interface TableRows {
  table: string;
  rows: readonly Row[];
}

/**
 * One PostgreSQL statement that inserts into several tables: every part but the last as a
 * data-modifying WITH (PostgreSQL runs each exactly once, whether or not it is read), so the rows
 * cost one round trip. `returning` applies to the first part, as in insertStatement, and
 * `returningLast` (column names) to the last, whose rows the statement answers. Rows of one part
 * must name the same columns.
 */
export function insertTogetherStatement(
  db: Db,
  parts: readonly TableRows[],
  returning: { sql: string } | undefined,
  returningLast: readonly string[] = [],
): CompiledQuery<Row> {
  const build = () => compileInsertTogether(db, parts, returning, returningLast);
  const parameters: unknown[] = [];
  const keys: string[] = [];
  for (const { table, rows } of parts) {
    const bound = boundRows(rows);
    if (!bound) return build();
    parameters.push(...bound.parameters);
    keys.push(`${table}\u0000${bound.shape}`);
  }
  return reuseStatement(
    db,
    `w\u0000${returning?.sql ?? ''}\u0001${returningLast.join('\u0000')}\u0001${keys.join('\u0001')}`,
    parameters,
    build,
  );
}

/**
 * insertTogetherStatement compiled as it comes, never kept: for statements whose shape (row counts,
 * columns) varies from one use to the next, which would only churn the cache of reused ones.
 */
export function compileInsertTogether(
  db: Db,
  parts: readonly TableRows[],
  returning: { sql: string } | undefined,
  returningLast: readonly string[] = [],
): CompiledQuery<Row> {
  const last = parts.length - 1;
  const insertOf = (creator: Creator, i: number) => {
    const insert = creator.insertInto(parts[i]!.table).values(parts[i]!.rows as Row[]);
    if (i === 0 && returning) return insert.returning(sql.raw(returning.sql).as('returned'));
    return i === last && returningLast.length > 0 ? insert.returning(returningLast) : insert;
  };
  // Nothing reads the WITH parts, so the schema types Kysely adds for them are dropped.
  let query: Creator = db;
  for (let i = 0; i < last; i++)
    query = query.with(`svc_part_${i}`, (creator) => insertOf(creator, i)) as unknown as Creator;
  return insertOf(query, last).compile() as CompiledQuery<Row>;
}

/** `update table set (columns of values) where id = ? [returning …]`. */
export function updateByIdStatement(
  db: Db,
  table: string,
  values: Row,
  id: string,
  returning: readonly string[] = [],
): CompiledQuery<Row> {
  const columns = definedColumns(values);
  const parameters: unknown[] = columns.map((column) => values[column]);
  parameters.push(id);
  const key = `u\u0000${table}\u0000${columns.join('\u0000')}\u0000${returning.join('\u0000')}`;
  return reuseStatement(db, key, parameters, () => {
    const update = db.updateTable(table).set(values).where('id', '=', id);
    return (returning.length > 0 ? update.returning(returning) : update).compile() as CompiledQuery<Row>;
  });
}

/**
 * An insert that writes nothing when `column`'s unique index already holds the row's value
 * (`on conflict (column) do nothing`, the same SQL on SQLite and PostgreSQL): what an upsert tries
 * first, race-free. `partial`: the index leaves soft-deleted rows out, and the conflict target must say so.
 */
export function insertUnlessTakenStatement(
  db: Db,
  table: string,
  row: Row,
  column: string,
  partial: boolean,
  returning: readonly string[],
): CompiledQuery<Row> {
  return db
    .insertInto(table)
    .values(row)
    .onConflict((conflict) => {
      const target = conflict.column(column);
      return (partial ? target.where('deleted_at', 'is', null) : target).doNothing();
    })
    .returning(returning)
    .compile() as CompiledQuery<Row>;
}
