// Opens an embedded SQLite database tuned for a server: WAL, foreign keys, busy timeout, regexp().
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, type SqliteDatabase } from 'kysely';
import type { DynamicSchema } from '../store-dialect.ts';
import { likeToRegExp } from '../like-to-regexp.ts';

const MAX_REGEX_LENGTH = 512;
const regexCache = new Map<string, RegExp>();
const ilikeCache = new Map<string, RegExp>();

function cached(cache: Map<string, RegExp>, pattern: string, compile: (pattern: string) => RegExp): RegExp {
  let compiled = cache.get(pattern);
  if (!compiled) {
    compiled = compile(pattern);
    if (cache.size > 1000) cache.clear();
    cache.set(pattern, compiled);
  }
  return compiled;
}

function compileRegex(pattern: string): RegExp {
  if (pattern.length > MAX_REGEX_LENGTH) throw new Error('regex pattern too long');
  return new RegExp(pattern, 'u');
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
    value === null || pattern === null ? null : cached(regexCache, String(pattern), compileRegex).test(String(value)) ? 1 : 0,
  );
  // SQLite's own LIKE folds only ASCII case; ILIKE must fold every letter, as PostgreSQL's does.
  raw.function('svc_ilike', { deterministic: true }, (value: unknown, pattern: unknown) =>
    value === null || pattern === null ? null : cached(ilikeCache, String(pattern), (p) => likeToRegExp(p, true)).test(String(value)) ? 1 : 0,
  );
  const db = new Kysely<DynamicSchema>({ dialect: new SqliteDialect({ database: withStatementCache(raw) }) });
  return { db, raw };
}

const MAX_CACHED_STATEMENTS = 500;

/**
 * Kysely prepares every query anew, which costs more than running a point lookup. Statements are
 * reused here, keyed by their SQL (the hot queries have fixed text; values are parameters). Kysely
 * runs one query at a time on the connection, so a statement is never in use twice at once.
 */
function withStatementCache(raw: Database.Database): SqliteDatabase {
  const statements = new Map<string, Database.Statement>();
  return {
    close: () => raw.close(),
    prepare(sql) {
      let statement = statements.get(sql);
      if (!statement) {
        statement = raw.prepare(sql);
        if (statements.size >= MAX_CACHED_STATEMENTS) statements.delete(statements.keys().next().value!);
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}
