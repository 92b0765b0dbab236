// On SQLite, writes that arrive together run as one group without savepoints; when one fails, the
// group is rolled back and run again with savepoints. A write whose work ran twice must still commit
// one row and one event, report that event once, and give back what its rolled-back run set aside.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { RecordEvent } from '../../src/model/record-event.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

describe('record writes in a group that is run again (SQLite)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp('sqlite');
  });
  after(async () => {
    await t.close();
  });

  it('commits each successful write once, with one event, and reports rolled-back events as discarded', async () => {
    const { records, registry, store } = t.ctx;
    const categories = registry.find('categories')!;
    const meta = {
      principal: { kind: 'key' as const, keyId: 'k', userId: 'editor-1', role: 'editor', keyPermissions: null },
    };
    const committed: RecordEvent[] = [];
    const discarded: RecordEvent[] = [];
    records.onCommitted((events) => committed.push(...events));
    records.onDiscarded((events) => discarded.push(...events));

    // Started in one turn, so they share a group; the second takes a name the first has just taken.
    const results = await Promise.allSettled([
      records.create(categories, meta, { name: 'Rerun A' }),
      records.create(categories, meta, { name: 'Rerun A' }),
      records.create(categories, meta, { name: 'Rerun C' }),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.equal((results[1] as PromiseRejectedResult).reason.code, 'CONFLICT');

    const ids = results.flatMap((r) => (r.status === 'fulfilled' ? [String(r.value.record.id)] : []));
    const rows = await sql<{ id: string }>`select id from categories where name like 'Rerun %' order by name`.execute(
      store.db,
    );
    assert.deepEqual(
      rows.rows.map((r) => r.id),
      ids,
    );
    const events = await sql<{
      id: string;
      resource_id: string;
    }>`select id, resource_id from svc_events where resource = 'categories' and resource_id in (${sql.join(ids)})`.execute(
      store.db,
    );
    assert.equal(events.rows.length, 2, 'one event per committed write');

    // What was reported committed is exactly what is stored; the first run's event of the write that
    // ran twice was reported discarded instead.
    const mine = committed.filter((event) => ids.includes(event.resourceId));
    assert.deepEqual(mine.map((event) => event.id).sort(), events.rows.map((row) => row.id).sort());
    assert.equal(discarded.length, 1);
    assert.equal(discarded[0]!.resourceId, ids[0]);
    assert.ok(!events.rows.some((row) => row.id === discarded[0]!.id), 'the discarded event was not stored');
  });
});
