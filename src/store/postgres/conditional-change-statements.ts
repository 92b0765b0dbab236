// Conditional changes in one PostgreSQL statement: the change (an insert under its required rows, or an
// update or delete at the row's xmin read before) with the rows written along with it, none of which is
// written when the change's conditions fail.
import { sql, type CompiledQuery, type RawBuilder } from 'kysely';
import type { Db } from '../store-dialect.ts';
import type { ChangeWithRows, ConditionalChange } from '../one-statement-writes.ts';
import { definedColumns, reuseStatement, type Creator, type TableRows } from '../write-statements.ts';

type Row = Record<string, unknown>;

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
    const headColumns =
      change.kind === 'insert'
        ? definedColumns(change.row)
        : change.kind === 'update'
          ? definedColumns(change.values)
          : [];
    const headValues = change.kind === 'insert' ? change.row : change.kind === 'update' ? change.values : {};
    const requires = change.kind === 'delete' ? [] : change.requires;
    for (const column of headColumns) parameters.push(headValues[column]);
    if (change.kind !== 'insert') parameters.push(change.id, change.version);
    for (const required of requires) parameters.push(required.id);
    keys.push(
      `${change.kind}\u0000${change.table}\u0000${headColumns.join('\u0000')}\u0000${requires.map(({ table, live }) => `${table}${live ? '+' : ''}`).join('\u0000')}`,
    );
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
      if (change.kind !== 'insert')
        conditions.push(sql`${sql.ref('id')} = ${change.id} and ${sql.ref('xmin')} = ${change.version}`);
      for (const { table, id, live } of requires) {
        conditions.push(
          sql`exists (select 1 from ${sql.table(table)} where ${sql.ref('id')} = ${id}${live ? sql` and ${sql.ref('deleted_at')} is null` : sql``})`,
        );
      }
      const condition = sql<boolean>`${sql.join(conditions, sql` and `)}`;
      query = query.with(target, (creator) => {
        if (change.kind === 'delete')
          return creator.deleteFrom(change.table).where(condition).returning(returningColumns);
        if (change.kind === 'update')
          return creator.updateTable(change.table).set(change.values).where(condition).returning(returningColumns);
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
    for (let c = 1; c < shapes.length; c++)
      answer = answer.unionAll(db.selectFrom(`svc_target_${c}`).select(returningColumns));
    return answer.compile() as CompiledQuery<Row>;
  };
  return reuseStatement(
    db,
    `c\u0000${returning?.sql ?? ''}\u0001${returningColumns.join('\u0000')}\u0001${keys.join('\u0001')}`,
    parameters,
    build,
  );
}
