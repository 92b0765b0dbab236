// Opens an embedded SQLite database tuned for a server: WAL, foreign keys, busy timeout, regexp().
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { Database, type SqliteDatabase } from './sqlite-driver.ts';
import { Kysely, SqliteDialect } from 'kysely';
import type { DynamicSchema } from '../store-dialect.ts';
import { PassReadTransaction } from './pass-read-transaction.ts';
import { sqliteExecuteIn, sqliteReadNow, withStatementCache } from './statement-cache.ts';
import { BACKSTOP_AUTOCHECKPOINT_PAGES, startWalCheckpointer } from './wal-checkpointer.ts';
import { compileLikePattern, type LikePattern } from '../../tools/like-pattern.ts';
import { compileLinearRegex } from '../../tools/linear-regex.ts';

/**
 * The connection's page cache. better-sqlite3 builds SQLite with 16 MiB, which a server fills as its data
 * grows: it was 11-13 MB of the benchmark's peak memory. Pages past it are read again from the operating
 * system's file cache (a system call each), which under the benchmark's reads and writes cost no CPU per
 * request that could be told from the noise (BENCHMARKS.md, Memory); the OS cache, not svc's heap, is
 * where a large database's hot pages belong.
 */
export const PAGE_CACHE_KIB = 4096;

const ilikeCache = new Map<string, LikePattern>();

function cached<T>(cache: Map<string, T>, pattern: string, compile: (pattern: string) => T): T {
  let compiled = cache.get(pattern);
  if (!compiled) {
    compiled = compile(pattern);
    if (cache.size > 1000) cache.clear();
    cache.set(pattern, compiled);
  }
  return compiled;
}

export interface OpenedSqlite {
  db: Kysely<DynamicSchema>;
  raw: SqliteDatabase;
  readNow: ReturnType<typeof sqliteReadNow>;
  executeIn: ReturnType<typeof sqliteExecuteIn>;
  /** A promise for the writer to wait on before its next write when the log should restart (wal-checkpointer.ts). */
  walCatchUp(): Promise<void> | undefined;
  /** Stops the checkpointing thread, then closes the database (the last connection checkpoints). */
  close(): Promise<void>;
}

/**
 * A new database file (and its folder) readable by its owner only, whatever the umask: it holds password
 * hashes, session tokens and keys' hashes. SQLite gives its `-wal` and `-shm` files the database file's
 * mode. An existing file keeps the mode it has.
 */
function createOwnerOnly(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

export function openSqlite(path: string): OpenedSqlite {
  if (path !== ':memory:') createOwnerOnly(path);
  const raw = new Database(path);
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = NORMAL');
  raw.pragma('foreign_keys = ON');
  raw.pragma('busy_timeout = 5000');
  // Each write in a group commit runs in a savepoint, and a savepoint keeps the pages it changes in a
  // statement journal; past 64 KiB (one create with its event and delivery touches ~20 pages) SQLite
  // spills that journal to a temp file, two pwrites per page. In memory it is a copy per page.
  raw.pragma('temp_store = MEMORY');
  if (path !== ':memory:') raw.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
  const checkpointer =
    path === ':memory:'
      ? undefined
      : startWalCheckpointer(path, {
          onError: (message) => process.emitWarning(`WAL checkpoint failed: ${message}`, 'SvcWalCheckpoint'),
        });
  if (checkpointer) raw.pragma(`wal_autocheckpoint = ${BACKSTOP_AUTOCHECKPOINT_PAGES}`);
  // SQLite calls `X REGEXP Y` as regexp(Y, X). Linear time: a role rule's pattern cannot hang the process.
  raw.function('regexp', { deterministic: true }, (pattern: unknown, value: unknown) =>
    value === null || pattern === null ? null : compileLinearRegex(String(pattern)).test(String(value)) ? 1 : 0,
  );
  // SQLite's own LIKE folds only ASCII case; ILIKE must fold every letter, as PostgreSQL's does.
  raw.function('svc_ilike', { deterministic: true }, (value: unknown, pattern: unknown) =>
    value === null || pattern === null
      ? null
      : cached(ilikeCache, String(pattern), (p) => compileLikePattern(p, true)).test(String(value))
        ? 1
        : 0,
  );
  const reads = new PassReadTransaction(raw);
  const database = withStatementCache(raw, reads);
  const db = new Kysely<DynamicSchema>({ dialect: new SqliteDialect({ database }) });
  const close = async () => {
    await checkpointer?.stop();
    await db.destroy();
  };
  const walCatchUp = () => checkpointer?.catchUp();
  return {
    db,
    raw,
    readNow: sqliteReadNow(database, reads),
    executeIn: sqliteExecuteIn(raw, database),
    walCatchUp,
    close,
  };
}
