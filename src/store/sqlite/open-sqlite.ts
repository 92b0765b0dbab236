// Opens an embedded SQLite database tuned for a server: WAL, foreign keys, busy timeout, regexp().
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { DynamicSchema } from '../store-dialect.ts';

const MAX_REGEX_LENGTH = 512;
const regexCache = new Map<string, RegExp>();

function compileRegex(pattern: string): RegExp {
  let compiled = regexCache.get(pattern);
  if (!compiled) {
    if (pattern.length > MAX_REGEX_LENGTH) throw new Error('regex pattern too long');
    compiled = new RegExp(pattern, 'u');
    if (regexCache.size > 1000) regexCache.clear();
    regexCache.set(pattern, compiled);
  }
  return compiled;
}

export function openSqlite(path: string): { db: Kysely<DynamicSchema>; raw: Database.Database } {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const raw = new Database(path);
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = NORMAL');
  raw.pragma('foreign_keys = ON');
  raw.pragma('busy_timeout = 5000');
  // SQLite calls `X REGEXP Y` as regexp(Y, X).
  raw.function('regexp', { deterministic: true }, (pattern: unknown, value: unknown) =>
    value === null || pattern === null ? null : compileRegex(String(pattern)).test(String(value)) ? 1 : 0,
  );
  const db = new Kysely<DynamicSchema>({ dialect: new SqliteDialect({ database: raw }) });
  return { db, raw };
}
