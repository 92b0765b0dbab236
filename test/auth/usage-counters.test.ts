// requestCount and lastRequest: counted in memory on the request path, written in batches with
// atomic increments, visible to the admin API before they are written, and flushed on close.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/test-databases.ts';
import { TEST_ADMIN_TOKEN } from '../helpers/test-config.ts';
import { createStore } from '../../src/store/create-store.ts';
import { createAuthComponent } from '../../src/auth/create-auth-component.ts';
import { UsageRecorder } from '../../src/auth/keys/usage-recorder.ts';
import type { UsageIncrement } from '../../src/auth/keys/api-key-repository.ts';
import { bearer, keyRow, startApp, startAuthSuite, testLogger, userWithKey, type AuthSuite } from './auth-fixtures.ts';

const ADMIN = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

describe('usage recorder', () => {
  it('adds up requests per key and hands them over once', async () => {
    const batches: UsageIncrement[][] = [];
    const recorder = new UsageRecorder(async (batch) => void batches.push([...batch]), testLogger(), 60_000);
    const t1 = new Date(1000);
    const t2 = new Date(2000);
    recorder.record('a', t1);
    recorder.record('a', t2);
    recorder.record('b', t1);
    await recorder.flush();
    await recorder.flush();
    assert.equal(batches.length, 1);
    assert.deepEqual(batches[0], [
      { keyId: 'a', count: 2, lastRequest: t2 },
      { keyId: 'b', count: 1, lastRequest: t1 },
    ]);
    await recorder.close();
  });

  it('lets a read of the stored counters wait for a batch being written, and read again when a flush overlaps it', async () => {
    // The admin view once showed 0 of 7 requests in CI: the batch was written by the interval's flush
    // while the view read the table, and was then in neither place.
    let stored = 0;
    let release = () => {};
    const recorder = new UsageRecorder(
      async (batch) => {
        await new Promise<void>((resolve) => (release = resolve));
        stored += batch.reduce((sum, item) => sum + item.count, 0);
      },
      testLogger(),
      60_000,
    );
    for (let i = 0; i < 3; i++) recorder.record('a', new Date(1000));
    const flushed = recorder.flush();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(recorder.pendingFor('a'), undefined, 'a batch being written is no longer pending');
    const read = recorder.readSettled(async () => stored);
    release();
    assert.equal(await read, 3);
    await flushed;

    recorder.record('a', new Date(2000));
    let reads = 0;
    const overlapped = recorder.readSettled(async () => {
      reads++;
      const seen = stored;
      if (reads === 1) {
        const flush = recorder.flush();
        await new Promise((resolve) => setImmediate(resolve));
        release();
        await flush;
      }
      return seen;
    });
    assert.equal(await overlapped, 4, 'the read a flush overlapped was run again');
    assert.equal(reads, 2);
    assert.equal(recorder.pendingFor('a'), undefined);
    await recorder.close();
  });

  it('keeps a batch whose write failed and adds it to the next one, counting nothing twice', async () => {
    let fail = true;
    const written: UsageIncrement[] = [];
    const recorder = new UsageRecorder(
      async (batch) => {
        if (fail) throw new Error('database down');
        written.push(...batch);
      },
      testLogger(),
      60_000,
    );
    recorder.record('a', new Date(1000));
    await recorder.flush();
    recorder.record('a', new Date(3000));
    fail = false;
    await recorder.close();
    assert.deepEqual(written, [{ keyId: 'a', count: 2, lastRequest: new Date(3000) }]);
  });
});

for (const dialect of testDialects()) {
  describe(`usage counters on ${dialect}`, () => {
    let suite: AuthSuite;
    before(async () => {
      suite = await startAuthSuite(dialect);
    });
    after(() => suite.close());

    it('does not write on the request path: counts stay in memory until a flush', async () => {
      const { key, keyId } = await userWithKey(suite.t);
      // A component of its own with a flush interval far beyond the test, so no timer can interfere.
      const auth = await createAuthComponent(suite.config, suite.t.ctx.store, testLogger(), {
        usageFlushMs: 3_600_000,
      });
      try {
        for (let i = 0; i < 5; i++) await auth.authenticate({ authorization: `Bearer ${key}` });
        assert.equal(Number((await keyRow(suite.t.ctx, keyId))?.request_count), 0);
        assert.equal((await auth.keys.get(keyId))?.requestCount, 5, 'the admin view adds what is pending');
        await auth.flushUsage();
        assert.equal(Number((await keyRow(suite.t.ctx, keyId))?.request_count), 5);
      } finally {
        await auth.close();
      }
    });

    it('writes requestCount and lastRequest, and adds (never overwrites) on the next flush', async () => {
      const { key, keyId } = await userWithKey(suite.t);
      const before = Date.now();
      await Promise.all(
        Array.from({ length: 7 }, () => suite.t.inject({ method: 'GET', url: '/v1/posts', headers: bearer(key) })),
      );
      const shown = await suite.t.inject({ method: 'GET', url: `/admin/keys/${keyId}`, headers: ADMIN });
      assert.equal(shown.json().data.attributes.requestCount, 7);

      await suite.t.ctx.auth.flushUsage();
      const row = await keyRow(suite.t.ctx, keyId);
      // Seen once in CI on PostgreSQL (0 instead of 7, not reproduced since): a failed flush logs why.
      assert.equal(
        Number(row?.request_count),
        7,
        JSON.stringify(suite.t.logs.filter((line) => Number(line.level) >= 40)),
      );
      assert.ok(row?.last_request && Date.parse(new Date(row.last_request as string).toISOString()) >= before - 5);

      await suite.t.inject({ method: 'GET', url: '/v1/posts', headers: bearer(key) });
      await suite.t.ctx.auth.flushUsage();
      assert.equal(Number((await keyRow(suite.t.ctx, keyId))?.request_count), 8);
    });

    it('adds the counts of two apps sharing the database without losing any', async () => {
      const { key, keyId } = await userWithKey(suite.t);
      const second = await startApp(suite.config, suite.t.ctx.store);
      try {
        await Promise.all([
          ...Array.from({ length: 5 }, () => suite.t.inject({ method: 'GET', url: '/v1/posts', headers: bearer(key) })),
          ...Array.from({ length: 4 }, () => second.inject({ method: 'GET', url: '/v1/posts', headers: bearer(key) })),
        ]);
        await Promise.all([suite.t.ctx.auth.flushUsage(), second.ctx.auth.flushUsage()]);
        assert.equal(Number((await keyRow(suite.t.ctx, keyId))?.request_count), 9);
      } finally {
        await second.close();
      }
    });

    it('flushes pending counts when the app closes', async () => {
      const { key, keyId } = await userWithKey(suite.t);
      const other = await startApp(suite.config, createStore(suite.config.database.url));
      await other.inject({ method: 'GET', url: '/v1/posts', headers: bearer(key) });
      await other.inject({ method: 'GET', url: '/v1/posts', headers: bearer(key) });
      await other.close();
      await other.ctx.store.close();
      assert.equal(Number((await keyRow(suite.t.ctx, keyId))?.request_count), 2);
    });
  });
}
