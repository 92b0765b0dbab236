// SQLite's log is copied into the database file by a worker thread, not inside request commits: rows
// committed on the main connection reach the main file without the main connection checkpointing.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { createStore } from '../../src/store/create-store.ts';
import { BACKSTOP_AUTOCHECKPOINT_PAGES } from '../../src/store/sqlite/wal-checkpointer.ts';

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
      assert.equal(store.driver.kind === 'sqlite' && store.driver.database.pragma('wal_autocheckpoint', { simple: true }), BACKSTOP_AUTOCHECKPOINT_PAGES);
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
