// Writes submitted in one pass share a statement; a lone write and every write of a failed group run
// alone; groups are cut into sizes that are powers of two up to their limit; writes of different keys
// never share.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StatementBatcher } from '../../src/store/postgres/statement-batcher.ts';

function recorder(options: { failGroups?: boolean; failOne?: (n: number) => boolean; maxGroup?: number } = {}) {
  const calls: string[] = [];
  const writes = new StatementBatcher<object, number, string>({
    runGroup: async (entries) => {
      calls.push(`group ${entries.join(',')}`);
      if (options.failGroups) throw new Error('a row of the group failed');
      return entries.map((n) => `g${n}`);
    },
    runOne: async (n) => {
      calls.push(`one ${n}`);
      if (options.failOne?.(n)) throw new Error(`write ${n} failed`);
      return `o${n}`;
    },
    maxGroup: options.maxGroup ?? 32,
  });
  return { writes, calls };
}

describe('grouped writes', () => {
  it('writes the entries of one pass together, each answered with its own result', async () => {
    const { writes, calls } = recorder();
    const key = {};
    assert.deepEqual(await Promise.all([1, 2, 3, 4].map((n) => writes.submit(key, n))), ['g1', 'g2', 'g3', 'g4']);
    assert.deepEqual(calls, ['group 1,2,3,4']);
  });

  it('runs a lone write by itself, and the next pass in a group of its own', async () => {
    const { writes, calls } = recorder();
    const key = {};
    assert.equal(await writes.submit(key, 1), 'o1');
    assert.deepEqual(await Promise.all([writes.submit(key, 2), writes.submit(key, 3)]), ['g2', 'g3']);
    assert.deepEqual(calls, ['one 1', 'group 2,3']);
  });

  it('runs each write of a failed group alone, so only the failing one fails', async () => {
    const { writes, calls } = recorder({ failGroups: true, failOne: (n) => n === 2 });
    const key = {};
    const results = await Promise.allSettled([1, 2, 3, 4].map((n) => writes.submit(key, n)));
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
    );
    assert.deepEqual(
      results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message)),
      ['o1', 'write 2 failed', 'o3', 'o4'],
    );
    assert.deepEqual(calls, ['group 1,2,3,4', 'one 1', 'one 2', 'one 3', 'one 4']);
  });

  it('cuts a pass into groups whose sizes are powers of two, so few statement texts are made', async () => {
    const { writes, calls } = recorder();
    const key = {};
    const answers = await Promise.all([1, 2, 3, 4, 5, 6, 7].map((n) => writes.submit(key, n)));
    assert.deepEqual(answers, ['g1', 'g2', 'g3', 'g4', 'g5', 'g6', 'o7']);
    assert.deepEqual(calls.sort(), ['group 1,2,3,4', 'group 5,6', 'one 7'].sort());
  });

  it('cuts a pass into groups of at most maxGroup, and keeps keys apart', async () => {
    const { writes, calls } = recorder({ maxGroup: 2 });
    const a = {};
    const b = {};
    const answers = await Promise.all([
      writes.submit(a, 1),
      writes.submit(b, 10),
      writes.submit(a, 2),
      writes.submit(a, 3),
      writes.submit(b, 11),
    ]);
    assert.deepEqual(answers, ['g1', 'g10', 'g2', 'o3', 'g11']);
    assert.deepEqual(calls.sort(), ['group 1,2', 'group 10,11', 'one 3'].sort());
  });
});
