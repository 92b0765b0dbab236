// The outbox tail hands on every newly committed event, and parses the payload only of those still
// wanted (an event this process already published, or one nobody here listens to, is skipped).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createStore } from '../../src/store/create-store.ts';
import { createOutboxTable, EVENTS_TABLE } from '../../src/events/outbox.ts';
import { parseNotifyPayload } from '../../src/store/commit-signal.ts';
import { notifyReturning } from '../../src/store/postgres/postgres-notifier.ts';
import { OutboxTailer } from '../../src/events/outbox-tailer.ts';
import type { RecordEvent } from '../../src/model/record-event.ts';
import { recordJsonParses } from '../helpers/json-parse-spy.ts';

const OPTIONS = { batchSize: 2, gapGraceMs: 1000, maxGaps: 100, startWindow: 10 };

function eventRow(id: string, resource = 'notes') {
  return {
    id,
    type: `${resource}.created`,
    resource,
    resource_id: `r-${id}`,
    payload: JSON.stringify({ id, resource } satisfies Partial<RecordEvent>),
    created_at: new Date().toISOString(),
  };
}

describe('OutboxTailer', () => {
  it('delivers new rows in order and parses only the wanted ones, moving past the others', async () => {
    const store = createStore('sqlite::memory:');
    try {
      await createOutboxTable(store.db, store.dialect);
      const tailer = new OutboxTailer(store.db, (event) => delivered.push(event.id), {
        ...OPTIONS,
        wants: (id, resource) => resource === 'notes' && id !== 'e2',
      });
      const delivered: string[] = [];
      await tailer.start();
      const rows = [eventRow('e1'), eventRow('e2'), eventRow('e3', 'tasks'), eventRow('e4')];
      await store.db.insertInto(EVENTS_TABLE).values(rows).execute();

      const parsed = await recordJsonParses(() => tailer.poll());
      assert.deepEqual(delivered, ['e1', 'e4']);
      assert.deepEqual(
        parsed.map((text) => (JSON.parse(text) as { id: string }).id),
        ['e1', 'e4'],
        'e2 and e3 were not parsed',
      );
      assert.equal(tailer.position, 4, 'past every row, wanted or not (two full batches read)');
      await tailer.stop();
    } finally {
      await store.close();
    }
  });

  describe('pass: a row taken as read without reading it', () => {
    /** `insert` adds rows by event id; an id written `seq:id` takes that seq (a gap left below it). */
    async function withTailer(
      test: (tailer: OutboxTailer, insert: (...ids: string[]) => Promise<void>, delivered: string[]) => Promise<void>,
    ) {
      const store = createStore('sqlite::memory:');
      try {
        await createOutboxTable(store.db, store.dialect);
        const delivered: string[] = [];
        const tailer = new OutboxTailer(store.db, (event) => delivered.push(event.id), { ...OPTIONS, batchSize: 100 });
        await tailer.start();
        const rowOf = (text: string) => {
          const [seq, id] = text.includes(':') ? text.split(':') : [undefined, text];
          return seq === undefined ? eventRow(id!) : { seq: Number(seq), ...eventRow(id!) };
        };
        await test(
          tailer,
          async (...ids) => void (await store.db.insertInto(EVENTS_TABLE).values(ids.map(rowOf)).execute()),
          delivered,
        );
        await tailer.stop();
      } finally {
        await store.close();
      }
    }

    it('passes the next seq when this process published its event, so a read does not bring it back', async () => {
      await withTailer(async (tailer, insert, delivered) => {
        await insert('e1', 'e2');
        assert.equal(
          tailer.pass(1, () => true),
          true,
        );
        assert.equal(tailer.position, 1);
        await tailer.poll();
        assert.deepEqual(delivered, ['e2'], 'e1 was passed, not read');
        assert.equal(
          tailer.pass(2, () => assert.fail('a row read already needs no check')),
          true,
        );
      });
    });

    it('leaves a row to the read when the event was not published here, or when rows before it are unread', async () => {
      await withTailer(async (tailer, insert, delivered) => {
        await insert('e1', 'e2', 'e3');
        assert.equal(
          tailer.pass(1, () => false),
          false,
          'not published here: another process, or its answer not read yet',
        );
        assert.equal(
          tailer.pass(3, () => assert.fail('seq 2 is unread: 3 is not next in line')),
          false,
        );
        assert.equal(tailer.position, 0);
        await tailer.poll();
        assert.deepEqual(delivered, ['e1', 'e2', 'e3']);
      });
    });

    it('closes an open gap with an event published here', async () => {
      await withTailer(async (tailer, insert, delivered) => {
        await insert('1:e1', '3:e3');
        await tailer.poll();
        assert.equal(tailer.gapCount, 1, 'seq 2 is missing');
        assert.equal(
          tailer.pass(2, () => true),
          true,
        );
        assert.equal(tailer.gapCount, 0);
        assert.equal(tailer.hasRead(2), true);
        await insert('2:e2');
        await tailer.poll();
        assert.deepEqual(delivered, ['e1', 'e3'], 'the passed gap is not read when its row appears');
      });
    });

    it('does not pass while a read is in flight: that read may return the row, which would be delivered twice', async () => {
      await withTailer(async (tailer, insert) => {
        await insert('e1');
        const reading = tailer.poll();
        assert.equal(
          tailer.pass(1, () => assert.fail('not asked while a read is in flight')),
          false,
        );
        await reading;
        assert.equal(tailer.position, 1);
      });
    });
  });
});

describe('notification payloads', () => {
  it('name the seq and the event id', () => {
    assert.match(notifyReturning('svc_events')!.sql, /^pg_notify\('svc_events', seq::text \|\| ' ' \|\| id\)$/);
    assert.deepEqual(parseNotifyPayload('42 0192a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b'), {
      seq: 42,
      id: '0192a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
    });
  });

  it('of another shape (an older process sent the seq alone) are not understood, so the row is read', () => {
    for (const payload of ['42', '', ' e1', 'x e1', '0 e1', '-3 e1', '42 ', '1.5 e1'])
      assert.equal(parseNotifyPayload(payload), null, payload);
  });
});
