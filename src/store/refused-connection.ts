// Whether a failure to start means the database refused the service (no such database, login refused),
// asked of every dialect: the store that failed to open is not there to ask.
import { postgresDialect } from './postgres/postgres-dialect.ts';
import { sqliteDialect } from './sqlite/sqlite-dialect.ts';

export function isRefusedConnection(error: unknown): boolean {
  return [sqliteDialect, postgresDialect].some((dialect) => dialect.isRefusedConnection(error));
}
