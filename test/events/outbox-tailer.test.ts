// The outbox tail hands on every newly committed event, and parses the payload only of those still
// wanted (an event this process already published, or one nobody here listens to, is skipped).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createStore } from '../../src/store/create-store.ts';
import { createOutboxTable, EVENTS_TABLE } from '../../src/events/outbox.ts';
import { OutboxTailer } from '../../src/events/outbox-tailer.ts';
import type { RecordEvent } from '../../src/events/record-event.ts';
import { recordJsonParses } from '../helpers/json-parse-spy.ts';

const OPTIONS = { batchSize: 2, gapGraceMs: 1000, maxGaps: 100, startWindow: 10 };

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
      const rows = [['e1', 'notes'], ['e2', 'notes'], ['e3', 'tasks'], ['e4', 'notes']].map(([id, resource]) => ({
        id: id!,
        type: `${resource}.created`,
        resource: resource!,
        resource_id: `r-${id}`,
        payload: JSON.stringify({ id, resource } satisfies Partial<RecordEvent>),
        created_at: new Date().toISOString(),
      }));
      await store.db.insertInto(EVENTS_TABLE).values(rows).execute();

      const parsed = await recordJsonParses(() => tailer.poll());
      assert.deepEqual(delivered, ['e1', 'e4']);
      assert.deepEqual(parsed.map((text) => (JSON.parse(text) as { id: string }).id), ['e1', 'e4'], 'e2 and e3 were not parsed');
      assert.equal(tailer.position, 4, 'past every row, wanted or not (two full batches read)');
      await tailer.stop();
    } finally {
      await store.close();
    }
  });
});
