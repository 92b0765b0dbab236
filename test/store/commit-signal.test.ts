// Wake-on-commit through the store alone: the writer's outbox insert carries the signal once someone
// listens, and another store's listener on the same database hears the commit with the event's id.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { createStore } from '../../src/store/create-store.ts';
import { parseNotifyPayload } from '../../src/store/commit-signal.ts';
import { appendEvent, createOutboxTable } from '../../src/events/outbox.ts';
import { createTestDatabase, testDialects } from '../helpers/test-databases.ts';
import { fakeEvent } from '../helpers/fake-event.ts';

const quiet = { warn() {} };

async function eventually(condition: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(10);
  }
}

describe('commit signal', () => {
  for (const dialect of testDialects()) {
    it(`signals an outbox insert's commit only once someone listens (${dialect})`, async () => {
      const database = await createTestDatabase(dialect);
      const writer = createStore(database.url);
      const reader = createStore(database.url);
      try {
        await createOutboxTable(writer.db, writer.dialect);
        assert.equal(writer.commitSignal.returning(), undefined, 'nothing is sent before anyone listens');
        const sending = writer.commitSignal.listen(quiet);
        const listener = reader.commitSignal.listen(quiet);
        if (dialect === 'sqlite') {
          // A database file has no signal: readers poll, and inserts carry nothing.
          assert.equal(sending, undefined);
          assert.equal(listener, undefined);
          assert.equal(writer.commitSignal.returning(), undefined);
          return;
        }
        assert.ok(listener);
        await sending?.close();
        const hints: string[] = [];
        await listener.start((hint) => {
          if (hint !== undefined) hints.push(hint);
        });
        try {
          const event = fakeEvent('notes');
          await writer.transact((trx) => appendEvent(writer, trx, event));
          await eventually(() => hints.length > 0, 'the commit is signalled');
          assert.deepEqual(
            hints.map((hint) => parseNotifyPayload(hint)?.id),
            [event.id],
          );
        } finally {
          await listener.close();
        }
      } finally {
        await writer.close();
        await reader.close();
        await database.drop();
      }
    });
  }
});
