// CREATE TABLE and CREATE INDEX for a resource's table, shared by a first start and a SQLite rebuild.
import { sql, type CreateTableBuilder } from 'kysely';
import type { ColumnSpec, IndexSpec } from './resource-columns.ts';
import type { Db, StoreDialect } from './store-dialect.ts';

/** Creates `name` with an `id` key and `columns`; SQLite can only declare foreign keys here, inline. */
export async function createResourceTable(
  db: Db,
  dialect: StoreDialect,
  name: string,
  columns: readonly ColumnSpec[],
): Promise<void> {
  let create: CreateTableBuilder<string, string> = db.schema
    .createTable(name)
    .addColumn('id', 'text', (c) => c.primaryKey());
  for (const column of columns) {
    create = create.addColumn(column.name, sql.raw(dialect.columnType(column.kind)), (c) => {
      const built = column.notNull ? c.notNull() : c;
      return dialect.name === 'sqlite' && column.references
        ? built.references(`${column.references.table}.id`).onDelete(column.references.onDelete)
        : built;
    });
  }
  await create.execute();
}

export async function createResourceIndex(db: Db, table: string, softDelete: boolean, index: IndexSpec): Promise<void> {
  let builder = db.schema.createIndex(index.name).on(table).column(index.column);
  if (index.unique) builder = builder.unique();
  // Soft-deleted rows must not hold on to unique values.
  if (index.unique && softDelete) builder = builder.where(sql.ref('deleted_at'), 'is', null);
  await builder.execute();
}
