// The column type of an ever-increasing row number that is never reused (outbox, signals, versions).
import { sql, type RawBuilder } from 'kysely';
import type { StoreDialect } from './store-dialect.ts';

export function sequenceColumn(dialect: StoreDialect): RawBuilder<unknown> {
  // AUTOINCREMENT: SQLite would otherwise reuse the highest number after it is deleted.
  return dialect.name === 'postgres' ? sql.raw('bigserial primary key') : sql.raw('integer primary key autoincrement');
}
