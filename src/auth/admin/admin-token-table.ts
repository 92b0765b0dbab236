// `svc_admin_tokens`: the generated admin token, stored as its SHA-256 only (docs/admin-api.md).
import { sql } from 'kysely';
import type { Store } from '../../store/create-store.ts';

export const ADMIN_TOKEN_TABLE = 'svc_admin_tokens';
/** One stored token per deployment: the row id is fixed, so concurrent first starts cannot both insert. */
export const ADMIN_TOKEN_ROW_ID = 'current';

export async function createAdminTokenTable(store: Store): Promise<void> {
  await store.db.schema
    .createTable(ADMIN_TOKEN_TABLE)
    .ifNotExists()
    .addColumn('id', sql.raw(store.dialect.columnType('text')), (c) => c.primaryKey())
    .addColumn('token_hash', sql.raw(store.dialect.columnType('text')), (c) => c.notNull())
    .addColumn('created_at', sql.raw(store.dialect.columnType('timestamp')), (c) => c.notNull())
    .execute();
}
