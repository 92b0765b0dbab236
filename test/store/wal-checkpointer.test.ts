// SQLite's log is copied into the database file by a worker thread, not inside request commits: rows
// committed on the main connection reach the main file without the main connection checkpointing.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, copyFileSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { Database } from '../../src/store/sqlite/sqlite-driver.ts';
import { sql } from 'kysely';
import { createStore } from '../../src/store/create-store.ts';
import { BACKSTOP_AUTOCHECKPOINT_PAGES, RESET_PAGES } from '../../src/store/sqlite/wal-checkpointer.ts';

function rowsInMainFile(path: string, dir: string): number {
  // A copy of the main file alone, without its -wal: it holds only what a checkpoint has written.
  const copy = join(dir, `copy-${Date.now()}.db`);
  copyFileSync(path, copy);
  const db = new Database(copy, { readonly: true });
  try {
    const table = db.prepare(`select 1 from sqlite_master where name = 't'`).get();
    return table ? (db.prepare('select count(*) as n from t').get() as { n: number }).n : 0;
  } finally {
    db.close();
  }
}

describe('WAL checkpoints on a worker thread', () => {
  it('writes committed rows into the main file while the main connection only commits', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-wal-'));
    const path = join(dir, 'data.db');
    const store = createStore(`sqlite:${path}`);
    try {
      assert.equal(
        store.driver.kind === 'sqlite' && store.driver.database.pragma('wal_autocheckpoint', { simple: true }),
        BACKSTOP_AUTOCHECKPOINT_PAGES,
      );
      await sql`create table t (id integer primary key, v text)`.execute(store.db);
      for (let i = 0; i < 50; i++) await sql`insert into t (v) values (${'x'.repeat(500)})`.execute(store.db);
      let seen = 0;
      for (let wait = 0; wait < 200 && seen < 50; wait++) {
        await sleep(50);
        seen = rowsInMainFile(path, dir);
      }
      assert.equal(seen, 50, 'the worker checkpointed every committed row');
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('closes promptly with nothing else keeping the process alive, and leaves no log behind', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-wal-'));
    const path = join(dir, 'data.db');
    const store = createStore(`sqlite:${path}`);
    await sql`create table t (id integer primary key)`.execute(store.db);
    await sql`insert into t (id) values (1)`.execute(store.db);
    await store.close();
    const db = new Database(path, { readonly: true });
    assert.equal((db.prepare('select count(*) as n from t').get() as { n: number }).n, 1);
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('does not keep a process alive whose store was never closed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-wal-'));
    const createStoreUrl = new URL('../../src/store/create-store.ts', import.meta.url).href;
    const script = `const { createStore } = await import(${JSON.stringify(createStoreUrl)});
      const store = createStore(${JSON.stringify(`sqlite:${join(dir, 'data.db')}`)});
      await new Promise((resolve) => setTimeout(resolve, 200));
      await store.db.destroy();`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      timeout: 20_000,
      encoding: 'utf8',
    });
    rmSync(dir, { recursive: true, force: true });
    assert.equal(child.signal, null, 'the process exited by itself');
    assert.equal(child.status, 0, child.stderr);
  });
});

/**
 * Frames in the log now, read from the shared-memory index (mxFrame, offset 16 of its header) rather
 * than asked of SQLite: asking through wal_checkpoint would itself copy the log and let it restart.
 */
function framesInLog(path: string): number {
  const header = Buffer.alloc(48);
  const fd = openSync(`${path}-shm`, 'r');
  try {
    readSync(fd, header, 0, 48, 0);
  } finally {
    closeSync(fd);
  }
  return os.endianness() === 'LE' ? header.readUInt32LE(16) : header.readUInt32BE(16);
}

describe('the write-ahead log under steady writes', () => {
  it('restarts from the beginning instead of growing towards the backstop', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-wal-'));
    const path = join(dir, 'data.db');
    const store = createStore(`sqlite:${path}`);
    try {
      await sql`create table t (id integer primary key, v blob)`.execute(store.db);
      const blob = Buffer.alloc(4096, 7);
      let written = 0;
      let longest = 0;
      // Writes without a pause long enough for a checkpoint to finish between two of them: each group
      // writes the next before the worker's checkpoint can have copied everything.
      const deadline = Date.now() + 30_000;
      while (written < 12_000 && Date.now() < deadline) {
        await Promise.all(
          Array.from({ length: 25 }, () =>
            store.transact((trx) => sql`insert into t (v) values (${blob})`.execute(trx)),
          ),
        );
        written += 25;
        if (written % 500 === 0) longest = Math.max(longest, framesInLog(path));
      }
      assert.ok(written >= 12_000, `wrote ${written} rows of 4 KB`);
      // 12,000 rows of 4 KB are over 12,000 pages of log: never restarted, it would grow to the
      // backstop's 10,000. Restarted, it stays within the restart threshold plus what is written
      // between the worker's reports (100 ms apart, longer on a loaded machine: 3,100 pages seen
      // with the whole suite running, 6,800 once on a slower run), short of the backstop.
      assert.ok(longest < 0.9 * BACKSTOP_AUTOCHECKPOINT_PAGES, `the log reached ${longest} pages`);
      assert.ok(RESET_PAGES < 0.9 * BACKSTOP_AUTOCHECKPOINT_PAGES);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
