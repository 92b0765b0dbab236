// SQLite storage: booleans as 0/1, timestamps as UTC ISO strings (so they sort as text), json as text.
import { sql, type Expression, type SqlBool } from 'kysely';
import { canonicalTimestamp } from '../canonical-timestamp.ts';
import type { StorageKind } from '../storage-kind.ts';
import type { Db, ExistingColumn, ExistingForeignKey, StoreDialect } from '../store-dialect.ts';
import { countByInSteps } from './count-in-steps.ts';
import { countByPlan, countPlanOf } from './stepped-count.ts';
import { sqliteSearch } from './sqlite-search.ts';

const COLUMN_TYPES: Record<StorageKind, string> = {
  text: 'text',
  integer: 'integer',
  real: 'real',
  boolean: 'integer',
  timestamp: 'text',
  date: 'text',
  json: 'text',
};

function sqliteCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
}

export const sqliteDialect: StoreDialect = {
  name: 'sqlite',
  label: 'SQLite',
  nullsSortFirst: true,
  supportsSkipLocked: false,
  supportsInsertInWith: false,
  sharedAcrossMachines: false,
  search: sqliteSearch,
  countByValue: (db, table, column) => countByInSteps(db, table, column),
  // A read is a call into the library, not a round trip: nothing to share.
  idAmong: undefined,
  planCount(db, table, conditions, whole) {
    const plan = countPlanOf(db, table, conditions, whole);
    return { take: (read) => countByPlan(read, plan) };
  },
  columnType: (kind) => COLUMN_TYPES[kind],
  columnMatches: (kind, existing) => existing.dataType.toLowerCase() === COLUMN_TYPES[kind],
  encode(kind, value) {
    if (value === null || value === undefined) return null;
    switch (kind) {
      case 'boolean':
        return value ? 1 : 0;
      case 'timestamp':
        return canonicalTimestamp(value);
      case 'json':
        return JSON.stringify(value);
      default:
        return value;
    }
  },
  decode(kind, value) {
    if (value === null || value === undefined) return null;
    switch (kind) {
      case 'boolean':
        return value === 1 || value === 1n || value === true;
      case 'json':
        return JSON.parse(value as string);
      case 'integer':
        return typeof value === 'bigint' ? Number(value) : value;
      default:
        return value;
    }
  },
  like(column, pattern, caseInsensitive) {
    // GLOB is case-sensitive but has other wildcards: translating keeps SQL LIKE semantics (`%`, `_`,
    // `\` escape). Case-insensitive matching goes through svc_ilike (see open-sqlite.ts) for Unicode folding.
    return caseInsensitive
      ? sql<boolean>`svc_ilike(${column}, ${pattern})`
      : sql<boolean>`${column} glob ${likeToGlob(pattern)}`;
  },
  common: (condition) => sql<SqlBool>`likely(${condition})`,
  regex: (column, pattern) => sql<boolean>`${column} regexp ${pattern}`,
  contains(column: Expression<unknown>, kind, value) {
    if (kind === 'json')
      return sql<boolean>`(json_type(${column}) = 'array' and exists (select 1 from json_each(${column}) where ${jsonElementEquals(value)}))`;
    return sql<boolean>`instr(${column}, ${String(value)}) > 0`;
  },
  async listColumns(db: Db, table) {
    const { rows } = await sql<{ name: string; type: string; notnull: number }>`
      select name, type, "notnull" from pragma_table_info(${table})`.execute(db);
    return rows.map((r): ExistingColumn => ({ name: r.name, dataType: r.type, nullable: r.notnull === 0 }));
  },
  async listIndexes(db: Db, table) {
    const { rows } = await sql<{ name: string }>`select name from pragma_index_list(${table})`.execute(db);
    return rows.map((r) => r.name);
  },
  async listForeignKeys(db: Db, table) {
    const { rows } = await sql<{ column: string; target: string; on_delete: string }>`
      select "from" as "column", "table" as target, on_delete from pragma_foreign_key_list(${table})`.execute(db);
    return rows.map(
      (r): ExistingForeignKey => ({ column: r.column, target: r.target, onDelete: r.on_delete.toLowerCase() }),
    );
  },
  async changeMark(db: Db) {
    // data_version moves when another connection (another process, or another handle here) commits;
    // this connection's own writes are tracked by the caller.
    const { rows } = await sql<{ mark: number }>`select data_version as mark from pragma_data_version()`.execute(db);
    return String(rows[0]!.mark);
  },
  withLockWait: (_trx, _ms, work) => work(),
  isUniqueViolation: (e) =>
    sqliteCode(e) === 'SQLITE_CONSTRAINT_UNIQUE' || sqliteCode(e) === 'SQLITE_CONSTRAINT_PRIMARYKEY',
  // ON DELETE RESTRICT fails as SQLITE_CONSTRAINT_TRIGGER; only the message names the foreign key.
  isForeignKeyViolation: (e) =>
    sqliteCode(e) === 'SQLITE_CONSTRAINT_FOREIGNKEY' ||
    (sqliteCode(e)?.startsWith('SQLITE_CONSTRAINT') === true && /FOREIGN KEY/.test((e as Error).message)),
  isConnectionError: (e) => sqliteCode(e) === 'SQLITE_CANTOPEN' || sqliteCode(e) === 'SQLITE_BUSY',
  // A file has no server that could refuse; a file that cannot be opened says so in its own message.
  isRefusedConnection: () => false,
};

/** SQL LIKE pattern → GLOB pattern (case-sensitive), escaping GLOB's own metacharacters. */
export function likeToGlob(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) {
      out += globLiteral(pattern[++i]!);
    } else if (c === '%') out += '*';
    else if (c === '_') out += '?';
    else out += globLiteral(c);
  }
  return out;
}

function globLiteral(c: string): string {
  return c === '*' || c === '?' || c === '[' ? `[${c}]` : c === ']' ? ']' : c;
}

/** `json_each.value` equal to a JSON value, comparing types as PostgreSQL's `@>` does for array elements. */
function jsonElementEquals(value: unknown) {
  if (value === null) return sql`json_each.type = 'null'`;
  if (typeof value === 'boolean') return sql`json_each.type = ${value ? 'true' : 'false'}`;
  if (typeof value === 'number') return sql`json_each.type in ('integer', 'real') and json_each.value = ${value}`;
  if (typeof value === 'string') return sql`json_each.type = 'text' and json_each.value = ${value}`;
  return sql`json_each.type in ('object', 'array') and json(json_each.value) = json(${JSON.stringify(value)})`;
}
