// Which of the given tables do not exist: the readiness check's "migrations applied". One statement
// when every table is there (the usual answer), one per table only to name the missing ones.
import { sql } from 'kysely';
import type { Store } from './create-store.ts';

export async function findMissingTables(store: Store, tables: readonly string[]): Promise<string[]> {
  if (tables.length === 0) return [];
  // `where 1 = 0` reads no row; the statement still fails when a table is missing.
  const probe = (table: string) => sql`select 1 as present from ${sql.table(table)} where 1 = 0`;
  try {
    await sql`${sql.join(tables.map(probe), sql` union all `)}`.execute(store.db);
    return [];
  } catch (error) {
    if (store.dialect.isConnectionError(error)) throw error;
    const missing: string[] = [];
    for (const table of tables) {
      try {
        await probe(table).execute(store.db);
      } catch (tableError) {
        if (store.dialect.isConnectionError(tableError)) throw tableError;
        missing.push(table);
      }
    }
    // Every table answered on its own: the combined statement failed for another reason.
    if (missing.length === 0) throw error;
    return missing;
  }
}
