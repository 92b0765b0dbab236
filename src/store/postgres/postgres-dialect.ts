// PostgreSQL storage: native boolean, timestamptz, date (read back as text), jsonb.
import { sql } from 'kysely';
import { re2ToPostgres } from './re2-to-postgres.ts';
import { canonicalTimestamp } from '../canonical-timestamp.ts';
import type { StorageKind } from '../storage-kind.ts';
import {
  LOCK_WAIT_EXCEEDED,
  type Db,
  type ExistingColumn,
  type ExistingForeignKey,
  type StoreDialect,
} from '../store-dialect.ts';
import { postgresSearch } from './postgres-search.ts';
import { PassSharedRead } from './pass-shared-read.ts';

// Text compares and sorts by code point, as on SQLite and in the in-memory predicate, whatever the
// database's default collation is (en_US would order 'a' < 'B' < 'b').
const COLUMN_TYPES: Record<StorageKind, string> = {
  text: 'text collate "C"',
  integer: 'bigint',
  real: 'double precision',
  boolean: 'boolean',
  timestamp: 'timestamptz',
  date: 'date',
  json: 'jsonb',
};

// information_schema names for the column types above.
const REPORTED_TYPES: Record<StorageKind, string> = {
  text: 'text',
  integer: 'bigint',
  real: 'double precision',
  boolean: 'boolean',
  timestamp: 'timestamp with time zone',
  date: 'date',
  json: 'jsonb',
};

// pg_constraint.confdeltype codes.
const FOREIGN_KEY_ACTIONS = new Map([
  ['a', 'no action'],
  ['r', 'restrict'],
  ['c', 'cascade'],
  ['n', 'set null'],
  ['d', 'set default'],
]);

function pgCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08003',
  '08006',
  '08001',
  '08004',
]);

/** What `pg` throws, without a code, when a connection drops mid-query or cannot be had from the pool in time. */
const CONNECTION_MESSAGES =
  /^(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect|Client was closed and is not queryable)/;

/** The database does not exist, the login was refused. */
const REFUSAL_CODES = new Set(['3D000', '28P01', '28000']);

function isPgConnectionError(error: unknown): boolean {
  if (CONNECTION_CODES.has(pgCode(error) ?? '')) return true;
  return error instanceof Error && CONNECTION_MESSAGES.test(error.message);
}

// Equal snapshots see the same committed transactions: any commit, or any new writing transaction,
// changes xmax or the in-progress list. Keyed by connection or transaction: a mark read inside a
// transaction is that transaction's.
const changeMarks = new PassSharedRead(async (db: Db) => {
  const { rows } = await sql<{ mark: string }>`select pg_current_snapshot()::text as mark`.execute(db);
  return rows[0]!.mark;
});

export const postgresDialect: StoreDialect = {
  name: 'postgres',
  label: 'PostgreSQL',
  nullsSortFirst: false,
  supportsSkipLocked: true,
  supportsInsertInWith: true,
  sharedAcrossMachines: true,
  search: postgresSearch,
  async countByValue(db, table, column) {
    const { rows } = await sql<{ value: unknown; total: number }>`
      select ${sql.ref(column)} as "value", count(*) as "total" from ${sql.table(table)} group by ${sql.ref(column)}`.execute(
      db,
    );
    return new Map(rows.map((row) => [String(row.value), Number(row.total)]));
  },
  idAmong: (ids) => sql<string>`any(${ids})`,
  // A count is one statement on a server process of its own: the event loop does not wait on it.
  planCount: () => undefined,
  columnType: (kind) => COLUMN_TYPES[kind],
  columnMatches: (kind, existing) => existing.dataType === REPORTED_TYPES[kind],
  encode(kind, value) {
    if (value === null || value === undefined) return null;
    switch (kind) {
      case 'timestamp':
        return canonicalTimestamp(value);
      case 'json':
        // pg would send JS arrays as PostgreSQL arrays; jsonb wants JSON text.
        return JSON.stringify(value);
      default:
        return value;
    }
  },
  decode(kind, value) {
    if (value === null || value === undefined) return null;
    switch (kind) {
      case 'timestamp':
        return value instanceof Date ? value.toISOString() : new Date(value as string).toISOString();
      case 'integer':
        return typeof value === 'string' || typeof value === 'bigint' ? Number(value) : value;
      case 'real':
        return typeof value === 'string' ? Number(value) : value;
      default:
        return value;
    }
  },
  like: (column, pattern, caseInsensitive) =>
    // Text columns are collated "C", whose case folding is ASCII only; ILIKE folds with the database's.
    caseInsensitive
      ? sql<boolean>`(${column}::text collate "default") ilike ${pattern}`
      : sql<boolean>`${column}::text like ${pattern}`,
  common: (condition) => condition,
  // RE2 syntax rewritten as an ARE; the database's collation (not "C") so \p{L} and (?i) know non-ASCII letters.
  regex: (column, pattern) => sql<boolean>`(${column}::text collate "default") ~ ${re2ToPostgres(pattern)}`,
  contains(column, kind, value) {
    if (kind === 'json') return sql<boolean>`${column} @> ${JSON.stringify([value])}::jsonb`;
    return sql<boolean>`strpos(${column}::text, ${String(value)}) > 0`;
  },
  async listColumns(db: Db, table) {
    const { rows } = await sql<{ column_name: string; data_type: string; is_nullable: string }>`
      select column_name, data_type, is_nullable from information_schema.columns
      where table_schema = current_schema() and table_name = ${table}`.execute(db);
    return rows.map(
      (r): ExistingColumn => ({ name: r.column_name, dataType: r.data_type, nullable: r.is_nullable === 'YES' }),
    );
  },
  async listIndexes(db: Db, table) {
    const { rows } = await sql<{ indexname: string }>`
      select indexname from pg_indexes where schemaname = current_schema() and tablename = ${table}`.execute(db);
    return rows.map((r) => r.indexname);
  },
  async listForeignKeys(db: Db, table) {
    const { rows } = await sql<{ name: string; column: string; target: string; action: string }>`
      select c.conname as name, a.attname as "column", target.relname as target, c.confdeltype as action
      from pg_constraint c
      join pg_class source on source.oid = c.conrelid
      join pg_namespace n on n.oid = source.relnamespace
      join pg_class target on target.oid = c.confrelid
      join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
      where c.contype = 'f' and n.nspname = current_schema() and source.relname = ${table}`.execute(db);
    return rows.map(
      (r): ExistingForeignKey => ({
        name: r.name,
        column: r.column,
        target: r.target,
        onDelete: FOREIGN_KEY_ACTIONS.get(r.action) ?? r.action,
      }),
    );
  },
  changeMark: (db: Db) => changeMarks.get(db),
  async withLockWait(trx, ms, work) {
    // `true`: for this transaction only, so a connection back in the pool never keeps the bound.
    const { rows } = await sql<{
      previous: string;
    }>`select current_setting('lock_timeout') as previous, set_config('lock_timeout', ${`${Math.max(1, Math.round(ms))}ms`}, true)`.execute(
      trx,
    );
    let result;
    try {
      result = await work();
    } catch (error) {
      // 55P03 lock_not_available: lock_timeout ran out while the statement waited.
      if (pgCode(error) === '55P03') return LOCK_WAIT_EXCEEDED;
      throw error;
    }
    await sql`select set_config('lock_timeout', ${rows[0]!.previous}, true)`.execute(trx);
    return result;
  },
  isUniqueViolation: (e) => pgCode(e) === '23505',
  isForeignKeyViolation: (e) => pgCode(e) === '23503',
  isConnectionError: isPgConnectionError,
  isRefusedConnection: (e) => REFUSAL_CODES.has(pgCode(e) ?? ''),
};
