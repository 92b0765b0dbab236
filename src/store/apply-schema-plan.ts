// Carries out a plan from plan-resource-schema.ts, all of it in one transaction: either the database
// ends up matching the definitions, or nothing changed.
import { sql } from 'kysely';
import type { Store } from './create-store.ts';
import { createResourceIndex, createResourceTable } from './create-resource-table.ts';
import type { TablePlan, SchemaPlan } from './plan-resource-schema.ts';
import type { ColumnSpec } from './resource-columns.ts';
import { rebuildSqliteTable } from './sqlite/rebuild-sqlite-table.ts';
import type { Db, StoreDialect } from './store-dialect.ts';

export async function applySchemaPlan(store: Store, plan: SchemaPlan): Promise<void> {
  if (plan.changes.length === 0) return;
  if (store.dialect.name === 'sqlite') await applyOnSqlite(store, plan);
  else await store.db.transaction().execute((trx) => applyOnPostgres(trx, store.dialect, plan));
}

async function applyOnSqlite(store: Store, plan: SchemaPlan): Promise<void> {
  const { dialect } = store;
  const rebuilding = plan.tables.some((t) => t.rebuild);
  // One connection throughout: the pragma must hold for the transaction, and it only takes effect
  // outside one.
  await store.db.connection().execute(async (conn) => {
    if (rebuilding) await sql`pragma foreign_keys = off`.execute(conn);
    try {
      await conn.transaction().execute(async (trx) => {
        for (const table of plan.tables) {
          if (table.search?.drop) await dialect.search.drop(trx, table.table);
          if (table.create) {
            await createResourceTable(trx, dialect, table.table, table.columns);
          } else if (table.rebuild) {
            const fresh = new Set([...table.add, ...table.reset]);
            const keep = table.columns.filter((c) => !fresh.has(c.name)).map((c) => c.name);
            await rebuildSqliteTable(trx, dialect, table.table, table.columns, keep);
          } else {
            for (const index of table.dropIndexes) await trx.schema.dropIndex(index).ifExists().execute();
            for (const name of table.add) await addColumn(trx, dialect, table.table, columnOf(table, name));
          }
          await fillDefaults(trx, table);
          // A rebuilt table lost every index with the old one.
          for (const index of table.rebuild ? table.indexes : table.createIndexes)
            await createResourceIndex(trx, table.table, table.softDelete, index);
          if (table.search?.create) await dialect.search.create(trx, table.table, table.search.create);
        }
        if (rebuilding) {
          const { rows } = await sql<Record<string, unknown>>`pragma foreign_key_check`.execute(trx);
          if (rows.length > 0)
            throw new Error(`The changed tables break foreign keys, e.g. ${JSON.stringify(rows[0])}`);
        }
      });
    } finally {
      if (rebuilding) await sql`pragma foreign_keys = on`.execute(conn);
    }
  });
}

async function applyOnPostgres(trx: Db, dialect: StoreDialect, plan: SchemaPlan): Promise<void> {
  for (const table of plan.tables) {
    // Before the columns it reads change.
    if (table.search?.drop) await dialect.search.drop(trx, table.table);
    if (table.create) {
      await createResourceTable(trx, dialect, table.table, table.columns);
      continue;
    }
    const alter = () => trx.schema.alterTable(table.table);
    for (const key of table.foreignKeys) {
      if (key.existingName) await alter().dropConstraint(key.existingName).ifExists().execute();
    }
    for (const index of table.dropIndexes) await trx.schema.dropIndex(index).ifExists().execute();
    // Dropping a column drops its indexes and foreign keys with it.
    for (const name of [...table.drop, ...table.reset]) await alter().dropColumn(name).execute();
    for (const name of [...table.reset, ...table.add])
      await addColumn(trx, dialect, table.table, columnOf(table, name));
    for (const name of table.widen) {
      const type = sql.raw(dialect.columnType(columnOf(table, name).kind));
      await sql`alter table ${sql.table(table.table)} alter column ${sql.ref(name)} type ${type} using ${sql.ref(name)}::${type}`.execute(
        trx,
      );
    }
    await fillDefaults(trx, table);
  }
  for (const table of plan.tables) {
    for (const index of table.createIndexes) await createResourceIndex(trx, table.table, table.softDelete, index);
    if (table.search?.create) await dialect.search.create(trx, table.table, table.search.create);
  }
  // Foreign keys last: a table may reference one created further down the plan.
  for (const table of plan.tables) {
    const changed = new Set([
      ...table.add,
      ...table.reset,
      ...table.foreignKeys.filter((k) => !k.remove).map((k) => k.column),
    ]);
    for (const column of table.columns) {
      const target = column.references;
      if (!target || !(table.create || changed.has(column.name))) continue;
      await trx.schema
        .alterTable(table.table)
        .addForeignKeyConstraint(`fk_${table.table}_${column.name}`, [column.name], target.table, ['id'], (c) =>
          c.onDelete(target.onDelete),
        )
        .execute();
    }
  }
}

function columnOf(table: TablePlan, name: string): ColumnSpec {
  const column = table.columns.find((c) => c.name === name);
  if (!column) throw new Error(`no column ${name} planned for ${table.table}`);
  return column;
}

async function addColumn(db: Db, dialect: StoreDialect, table: string, column: ColumnSpec): Promise<void> {
  await db.schema
    .alterTable(table)
    .addColumn(column.name, sql.raw(dialect.columnType(column.kind)), (c) =>
      dialect.name === 'sqlite' && column.references
        ? c.references(`${column.references.table}.id`).onDelete(column.references.onDelete)
        : c,
    )
    .execute();
}

/** Existing rows get a new column's default: the value a row created now would have. */
async function fillDefaults(db: Db, table: TablePlan): Promise<void> {
  for (const [name, value] of table.fill)
    await db
      .updateTable(table.table)
      .set({ [name]: value })
      .execute();
}
