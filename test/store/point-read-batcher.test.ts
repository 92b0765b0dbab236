// Reads by id that arrive in one pass share one query per group; each caller gets its own row.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PointReadBatcher } from '../../src/store/point-read-batcher.ts';

type Row = Record<string, unknown>;

function recordingBatcher(rows: Row[], fail?: Error) {
  const calls: Array<{ group: string; ids: string[] }> = [];
  const groups = new Map<string, { name: string }>();
  const group = (name: string) => groups.get(name) ?? groups.set(name, { name }).get(name)!;
  const batcher = new PointReadBatcher<{ name: string }>(async (g, ids) => {
    calls.push({ group: g.name, ids });
    if (fail) throw fail;
    return rows.filter((row) => ids.includes(row.id as string));
  });
  return { calls, group, batcher };
}

describe('PointReadBatcher', () => {
  it('sends the reads of one pass as one query per group, each distinct id once', async () => {
    const { calls, group, batcher } = recordingBatcher([
      { id: 'a', n: 1 },
      { id: 'b', n: 2 },
      { id: 'c', n: 3 },
    ]);
    const answers = await Promise.all([
      batcher.read(group('posts'), 'a'),
      batcher.read(group('posts'), 'b'),
      batcher.read(group('posts'), 'a'),
      batcher.read(group('posts'), 'missing'),
      batcher.read(group('other'), 'c'),
    ]);
    assert.deepEqual(answers, [{ id: 'a', n: 1 }, { id: 'b', n: 2 }, { id: 'a', n: 1 }, undefined, { id: 'c', n: 3 }]);
    assert.deepEqual(calls, [
      { group: 'posts', ids: ['a', 'b', 'missing'] },
      { group: 'other', ids: ['c'] },
    ]);
  });

  it('starts a new batch for reads made after the pass, and a lone read runs alone', async () => {
    const { calls, group, batcher } = recordingBatcher([{ id: 'a' }, { id: 'b' }]);
    assert.deepEqual(await batcher.read(group('posts'), 'a'), { id: 'a' });
    assert.deepEqual(await batcher.read(group('posts'), 'b'), { id: 'b' });
    assert.deepEqual(
      calls.map((call) => call.ids),
      [['a'], ['b']],
    );
  });

  it('fails every read of a batch whose query failed, and only those', async () => {
    const failure = new Error('connection lost');
    const { group, batcher } = recordingBatcher([], failure);
    const results = await Promise.allSettled([batcher.read(group('posts'), 'a'), batcher.read(group('posts'), 'b')]);
    assert.deepEqual(
      results.map((result) => result.status),
      ['rejected', 'rejected'],
    );
    assert.equal((results[0] as PromiseRejectedResult).reason, failure);
  });
});
