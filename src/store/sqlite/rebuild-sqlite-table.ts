// SQLite's way to change what ALTER TABLE cannot (drop a referenced column, change a foreign key): make
// the new table beside the old one, copy the rows, drop the old table and give the new one its name.
// The caller runs it in a transaction with `PRAGMA foreign_keys` off (else dropping the old table would
// delete or refuse through the foreign keys pointing at it) and recreates the indexes afterwards. Other
// tables' foreign keys name the table, so they point at the new one once it has the name.
import { sql } from 'kysely';
import { createResourceTable } from '../create-resource-table.ts';
import type { ColumnSpec } from '../resource-columns.ts';
import type { Db, StoreDialect } from '../store-dialect.ts';

export async function rebuildSqliteTable(
  db: Db,
  dialect: StoreDialect,
  table: string,
  columns: readonly ColumnSpec[],
  keep: readonly string[],
): Promise<void> {
  const rebuilt = `svc_rebuild_${table}`;
  await db.schema.dropTable(rebuilt).ifExists().execute();
  await createResourceTable(db, dialect, rebuilt, columns);
  const copied = sql.join(['id', ...keep].map((name) => sql.ref(name)));
  await sql`insert into ${sql.table(rebuilt)} (${copied}) select ${copied} from ${sql.table(table)}`.execute(db);
  await db.schema.dropTable(table).execute();
  await db.schema.alterTable(rebuilt).renameTo(table).execute();
}
