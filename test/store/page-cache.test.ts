// SQLite's page cache is bounded at PAGE_CACHE_KIB per connection: a server's data grows past any
// cache, and the pages past it belong in the operating system's file cache, not in svc's memory.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStore } from '../../src/store/create-store.ts';
import { PAGE_CACHE_KIB } from '../../src/store/sqlite/open-sqlite.ts';

/** Read system calls made by this thread so far (Linux). */
function readCalls(): number {
  return Number(/syscr: (\d+)/.exec(readFileSync('/proc/thread-self/io', 'utf8'))![1]);
}

describe('the SQLite page cache', { skip: process.platform !== 'linux' && 'reads /proc/thread-self/io' }, () => {
  it('holds at most its bound: a table twice its size is read from the file again on a second scan', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-page-cache-'));
    const store = createStore(`sqlite:${join(dir, 'data.db')}`);
    try {
      assert.ok(store.driver.kind === 'sqlite');
      const raw = store.driver.database;
      assert.equal(raw.pragma('cache_size', { simple: true }), -PAGE_CACHE_KIB);
      // One row per 4 KiB page: a table of twice the cache's size.
      const pages = (2 * PAGE_CACHE_KIB) / 4;
      raw.exec('create table t (id integer primary key, v text)');
      const insert = raw.prepare('insert into t (v) values (?)');
      raw.transaction(() => {
        for (let i = 0; i < pages; i++) insert.run('x'.repeat(3000));
      })();
      // Into the main file, so the scans below read it rather than the write-ahead log.
      raw.pragma('wal_checkpoint(TRUNCATE)');
      const scan = raw.prepare('select sum(length(v)) as n from t');
      scan.get();
      const before = readCalls();
      assert.equal((scan.get() as { n: number }).n, pages * 3000);
      const reads = readCalls() - before;
      // With better-sqlite3's 16 MiB the second scan found every page in the cache (no reads at all).
      assert.ok(reads >= pages / 2, `${reads} read calls to scan ${pages} pages a second time`);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
