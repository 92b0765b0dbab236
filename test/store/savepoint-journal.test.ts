// A group commit runs each write in a savepoint, and every savepoint journals the pages it changes.
// That journal stays in memory: spilled to a temp file it cost two pwrites per page per write.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStore } from '../../src/store/create-store.ts';

const WRITES = 20;
const PAGES_PER_WRITE = 40;

/** Write system calls made by this thread so far (Linux). */
function writeCalls(): number {
  return Number(/syscw: (\d+)/.exec(readFileSync('/proc/thread-self/io', 'utf8'))![1]);
}

describe('the savepoint journal of grouped writes', {
  skip: process.platform !== 'linux' && 'reads /proc/thread-self/io',
}, () => {
  it('is kept in memory, so a write touching many pages costs no file writes before the commit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-subjournal-'));
    const store = createStore(`sqlite:${join(dir, 'data.db')}`);
    try {
      assert.ok(store.driver.kind === 'sqlite');
      const raw = store.driver.database;
      assert.equal(raw.pragma('temp_store', { simple: true }), 2, 'temp_store = MEMORY');
      // One row per page, so each write below changes PAGES_PER_WRITE pages (160 KiB, past SQLite's
      // 64 KiB spill threshold for statement journals).
      raw.exec('create table t (id integer primary key, v text)');
      const insert = raw.prepare('insert into t (v) values (?)');
      raw.transaction(() => {
        for (let i = 0; i < PAGES_PER_WRITE; i++) insert.run('x'.repeat(3000));
      })();
      const update = raw.prepare('update t set v = ?');
      const before = writeCalls();
      raw.exec('begin');
      for (let i = 0; i < WRITES; i++) {
        raw.exec('savepoint w');
        update.run(String(i).repeat(3000).slice(0, 3000));
        raw.exec('release w');
      }
      raw.exec('commit');
      const calls = writeCalls() - before;
      // The commit appends each changed page to the log once (two writes a page); a spilled journal
      // would add 2 x WRITES x PAGES_PER_WRITE = 1,600 more.
      assert.ok(
        calls < 4 * PAGES_PER_WRITE,
        `${calls} write calls for ${WRITES} savepoints over ${PAGES_PER_WRITE} pages`,
      );
      assert.equal(
        (raw.prepare('select count(*) as n from t where v like ?').get(`${WRITES - 1}%`) as { n: number }).n,
        PAGES_PER_WRITE,
      );
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
