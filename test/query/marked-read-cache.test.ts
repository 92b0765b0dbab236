// The read cache behind list pages and totals: reused only under the same mark, concurrent reads
// shared, and bounded by weight so large rows cannot grow it without limit.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MarkedReadCache } from '../../src/records/marked-read-cache.ts';
import { pageWeight } from '../../src/records/page-weight.ts';
import { noteResourceWrite } from '../../src/records/write-generation.ts';
import type { Db, StoreDialect } from '../../src/store/store-dialect.ts';

function fixture() {
  const state = { mark: 'm1', reads: 0 };
  const db = {} as Db;
  const dialect = { changeMark: async () => state.mark } as unknown as StoreDialect;
  const read = (value: string) => async () => {
    state.reads++;
    return value;
  };
  return { state, db, dialect, read };
}

describe('MarkedReadCache', () => {
  it('reuses a result under the same mark, and reads again when another connection or this process wrote', async () => {
    const { state, db, dialect, read } = fixture();
    const cache = new MarkedReadCache<string>({ maxEntries: 10 });
    assert.equal(await cache.get(db, dialect, 'k', read('a')), 'a');
    assert.equal(await cache.get(db, dialect, 'k', read('b')), 'a');
    assert.equal(state.reads, 1);
    state.mark = 'm2';
    assert.equal(await cache.get(db, dialect, 'k', read('c')), 'c');
    noteResourceWrite(db);
    assert.equal(await cache.get(db, dialect, 'k', read('d')), 'd');
    assert.equal(await cache.get(db, dialect, undefined, read('e')), 'e', 'no key: always read');
    assert.equal(state.reads, 4);
  });

  it('gives a read the mark it runs under, and takes a known mark without reading it again', async () => {
    const { state, db, read } = fixture();
    let markReads = 0;
    const changeMark = async () => {
      markReads++;
      return state.mark;
    };
    const dialect = { changeMark } as unknown as StoreDialect;
    const outer = new MarkedReadCache<string>({ maxEntries: 10 });
    const inner = new MarkedReadCache<string>({ maxEntries: 10 });
    const value = await outer.get(db, dialect, 'page', (mark) => inner.get(db, dialect, 'count', read('n'), mark));
    assert.equal(value, 'n');
    assert.equal(markReads, 1, 'the inner read used the outer mark');
    assert.equal(await inner.get(db, dialect, 'count', read('other')), 'n', 'stored under that mark');
    state.mark = 'm2';
    assert.equal(
      await inner.get(db, dialect, 'count', read('fresh'), 'stale-mark'),
      'fresh',
      'another known mark reads again',
    );
  });

  it('shares one read between concurrent requests under the same mark', async () => {
    const { state, db, dialect, read } = fixture();
    const cache = new MarkedReadCache<string>({ maxEntries: 10 });
    const answers = await Promise.all([1, 2, 3].map(() => cache.get(db, dialect, 'k', read('x'))));
    assert.deepEqual(answers, ['x', 'x', 'x']);
    assert.equal(state.reads, 1);
  });

  it('keeps no more than its weight: a value heavier than the bound is not kept, and a full cache starts again', async () => {
    const { state, db, dialect, read } = fixture();
    const cache = new MarkedReadCache<string>({ maxEntries: 100, weigh: (value) => value.length, maxWeight: 10 });
    await cache.get(db, dialect, 'big', read('x'.repeat(11)));
    await cache.get(db, dialect, 'big', read('x'.repeat(11)));
    assert.equal(state.reads, 2, 'too heavy to keep');
    await cache.get(db, dialect, 'a', read('aaaaaa'));
    await cache.get(db, dialect, 'b', read('bbbbbb')); // 12 > 10: the cache starts again with b alone
    await cache.get(db, dialect, 'b', read('bbbbbb'));
    assert.equal(state.reads, 4);
    await cache.get(db, dialect, 'a', read('aaaaaa'));
    assert.equal(state.reads, 5, 'a was dropped when b did not fit beside it');
  });

  it('weighs a page by the text of its values', () => {
    const small = pageWeight([{ id: '1', title: 'x' }]);
    const large = pageWeight([{ id: '1', title: 'x'.repeat(100_000) }]);
    assert.ok(large - small >= 99_999, `${small} vs ${large}`);
    assert.ok(pageWeight([{ tags: ['a'.repeat(1000)] }]) > 1000, 'json values by their JSON text');
  });
});
