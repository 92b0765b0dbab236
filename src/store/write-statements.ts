// Inserts and updates-by-id compiled by Kysely once per table and column list, then run with new values:
// building and compiling them per request was about a tenth of a create (Kysely freezes and visits an
// operation tree for every statement). The SQL text stays the same, so the prepared statement is reused.
import { sql, type CompiledQuery, type QueryCreator, type RawBuilder } from 'kysely';
import type { Db, DynamicSchema } from './store-dialect.ts';

type Creator = QueryCreator<DynamicSchema>;

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
function reuse(db: Db, key: string, parameters: unknown[], build: () => CompiledQuery<Row>): CompiledQuery<Row> {
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
function definedColumns(row: Row): string[] {
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
export function insertStatement(db: Db, table: string, rows: readonly Row[], returning: readonly string[] | { sql: string } = []): CompiledQuery<Row> {
  const build = () => {
    const insert = db.insertInto(table).values(rows as Row[]);
    if ('sql' in returning) return insert.returning(sql.raw(returning.sql).as('returned')).compile() as CompiledQuery<Row>;
    return (returning.length > 0 ? insert.returning(returning) : insert).compile() as CompiledQuery<Row>;
  };
  const bound = boundRows(rows);
  if (!bound) return build();
  const returned = 'sql' in returning ? `(${returning.sql})` : returning.join('\u0000');
  return reuse(db, `i\u0000${table}\u0000${bound.shape}\u0000${returned}`, bound.parameters, build);
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
  const last = parts.length - 1;
  const build = () => {
    const insertOf = (creator: Creator, i: number) => {
      const insert = creator.insertInto(parts[i]!.table).values(parts[i]!.rows as Row[]);
      if (i === 0 && returning) return insert.returning(sql.raw(returning.sql).as('returned'));
      return i === last && returningLast.length > 0 ? insert.returning(returningLast) : insert;
    };
    // Nothing reads the WITH parts, so the schema types Kysely adds for them are dropped.
    let query: Creator = db;
    for (let i = 0; i < last; i++) query = query.with(`svc_part_${i}`, (creator) => insertOf(creator, i)) as unknown as Creator;
    return insertOf(query, last).compile() as CompiledQuery<Row>;
  };
  const parameters: unknown[] = [];
  const keys: string[] = [];
  for (const { table, rows } of parts) {
    const bound = boundRows(rows);
    if (!bound) return build();
    parameters.push(...bound.parameters);
    keys.push(`${table}\u0000${bound.shape}`);
  }
  return reuse(db, `w\u0000${returning?.sql ?? ''}\u0001${returningLast.join('\u0000')}\u0001${keys.join('\u0001')}`, parameters, build);
}

/** `update table set (columns of values) where id = ? [returning …]`. */
export function updateByIdStatement(db: Db, table: string, values: Row, id: string, returning: readonly string[] = []): CompiledQuery<Row> {
  const columns = definedColumns(values);
  const parameters: unknown[] = columns.map((column) => values[column]);
  parameters.push(id);
  const key = `u\u0000${table}\u0000${columns.join('\u0000')}\u0000${returning.join('\u0000')}`;
  return reuse(db, key, parameters, () => {
    const update = db.updateTable(table).set(values).where('id', '=', id);
    return (returning.length > 0 ? update.returning(returning) : update).compile() as CompiledQuery<Row>;
  });
}

/** A row that must exist for a conditional change to apply: `id` in `table`, not soft-deleted when `live`. */
export interface RequiredRow {
  table: string;
  id: unknown;
  live: boolean;
}

/**
 * The change at the head of a conditional statement: an insert that applies only if its required rows
 * exist, or an update or delete of the row still at the version read (its `xmin`, which every update
 * and re-insert of a row changes) whose required rows exist.
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

/**
 * One PostgreSQL statement that makes `change` only if its conditions hold, and inserts `parts`' rows
 * only if it did: each row is a data-modifying WITH selecting its values from the changed row, so none
 * is written when the change was not. PostgreSQL takes the parameters' types from the columns they go
 * to. `returning` applies to the first part's rows (as in insertTogetherStatement); the statement
 * answers the changed row's `returningColumns`, or no row when nothing was changed.
 */
export function conditionalChangeStatement(
  db: Db,
  change: ConditionalChange,
  parts: readonly TableRows[],
  returning: { sql: string } | undefined,
  returningColumns: readonly string[],
): CompiledQuery<Row> {
  return conditionalChangesStatement(db, [{ change, parts }], returning, returningColumns);
}

/**
 * conditionalChangeStatement for several changes at once: each change is a WITH of its own
 * (`svc_target_<n>`) with its rows selected from it alone, and the statement answers the rows of those
 * that were made. Changes must be to distinct rows: PostgreSQL does not change one row twice in a
 * statement. They are made in the order given (the answer reads the targets in that order), so
 * callers that give them in one order (by id) lock rows in one order.
 */
export function conditionalChangesStatement(
  db: Db,
  changes: readonly ChangeWithRows[],
  returning: { sql: string } | undefined,
  returningColumns: readonly string[],
): CompiledQuery<Row> {
  const parameters: unknown[] = [];
  const keys: string[] = [];
  const shapes = changes.map(({ change, parts }) => {
    const headColumns = change.kind === 'insert' ? definedColumns(change.row) : change.kind === 'update' ? definedColumns(change.values) : [];
    const headValues = change.kind === 'insert' ? change.row : change.kind === 'update' ? change.values : {};
    const requires = change.kind === 'delete' ? [] : change.requires;
    for (const column of headColumns) parameters.push(headValues[column]);
    if (change.kind !== 'insert') parameters.push(change.id, change.version);
    for (const required of requires) parameters.push(required.id);
    keys.push(`${change.kind}\u0000${change.table}\u0000${headColumns.join('\u0000')}\u0000${requires.map(({ table, live }) => `${table}${live ? '+' : ''}`).join('\u0000')}`);
    const rows: { table: string; row: Row; columns: string[] }[] = [];
    for (const { table, rows: tableRows } of parts) {
      for (const row of tableRows) {
        const columns = definedColumns(row);
        rows.push({ table, row, columns });
        for (const column of columns) parameters.push(row[column]);
        keys.push(`${table}\u0000${columns.join('\u0000')}`);
      }
    }
    keys.push('');
    return { change, headColumns, requires, rows };
  });
  const build = () => {
    // The WITH parts are not in the schema Kysely knows; the names are the service's own.
    let query = db as unknown as Creator;
    shapes.forEach(({ change, headColumns, requires, rows }, c) => {
      const target = `svc_target_${c}`;
      const conditions: RawBuilder<unknown>[] = [];
      if (change.kind !== 'insert') conditions.push(sql`${sql.ref('id')} = ${change.id} and ${sql.ref('xmin')} = ${change.version}`);
      for (const { table, id, live } of requires) {
        conditions.push(sql`exists (select 1 from ${sql.table(table)} where ${sql.ref('id')} = ${id}${live ? sql` and ${sql.ref('deleted_at')} is null` : sql``})`);
      }
      const condition = sql<boolean>`${sql.join(conditions, sql` and `)}`;
      query = query.with(target, (creator) => {
        if (change.kind === 'delete') return creator.deleteFrom(change.table).where(condition).returning(returningColumns);
        if (change.kind === 'update') return creator.updateTable(change.table).set(change.values).where(condition).returning(returningColumns);
        let select = creator.selectNoFrom(headColumns.map((column) => sql`${change.row[column]}`.as(column)));
        if (conditions.length > 0) select = select.where(condition);
        return creator.insertInto(change.table).columns(headColumns).expression(select).returning(returningColumns);
      }) as unknown as Creator;
      rows.forEach(({ table, row, columns }, i) => {
        query = query.with(`svc_part_${c}_${i}`, (creator) => {
          const insert = creator
            .insertInto(table)
            .columns(columns)
            .expression(creator.selectFrom(target).select(columns.map((column) => sql`${row[column]}`.as(column))));
          return i === 0 && returning ? insert.returning(sql.raw(returning.sql).as('returned')) : insert;
        }) as unknown as Creator;
      });
    });
    let answer = query.selectFrom('svc_target_0').select(returningColumns);
    for (let c = 1; c < shapes.length; c++) answer = answer.unionAll(db.selectFrom(`svc_target_${c}`).select(returningColumns));
    return answer.compile() as CompiledQuery<Row>;
  };
  return reuse(db, `c\u0000${returning?.sql ?? ''}\u0001${returningColumns.join('\u0000')}\u0001${keys.join('\u0001')}`, parameters, build);
}
