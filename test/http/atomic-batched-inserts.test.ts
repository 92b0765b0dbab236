// A batch's creates sent as multi-row inserts where the store offers them (PostgreSQL: one statement
// for the rows, their events and their deliveries), with every guarantee of a batch kept on both
// databases: results and events in operation order, reads and writes of rows created earlier in the
// batch, and a refusal anywhere (a unique value, a check rule, a validation) naming its operation
// with nothing stored and no event.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';
import { statementsDuring } from '../helpers/sent-statements.ts';
import { BLOG_RESOURCES } from '../helpers/test-config.ts';
import { EVENTS_TABLE } from '../../src/events/outbox.ts';
import { DELIVERIES_TABLE } from '../../src/webhooks/webhook-tables.ts';
import type { RecordEvent } from '../../src/model/record-event.ts';
import { startReceiver, type Receiver } from '../webhooks/fixtures/receiver.ts';

const ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';

type Op = Record<string, unknown>;
interface ErrorObject {
  code: string;
  source?: { pointer?: string };
}
interface Results {
  'atomic:results': { data?: { id: string; type: string; attributes: Record<string, unknown> } }[];
}

const addCategory = (name: string, lid?: string): Op => ({
  op: 'add',
  data: { type: 'categories', ...(lid ? { lid } : {}), attributes: { name } },
});
const addTask = (text: string, priority: number): Op => ({
  op: 'add',
  data: { type: 'tasks', attributes: { text, priority } },
});

for (const dialect of testDialects()) {
  describe(`atomic operations: a batch's creates written together (${dialect})`, () => {
    let t: TestApp;
    let editor: string;
    let receiver: Receiver;
    const committed: RecordEvent[][] = [];

    before(async () => {
      t = await startTestApp(dialect, {
        server: {
          port: 0,
          host: '127.0.0.1',
          cors: { origins: [] },
          bodyLimitBytes: 1048576,
          atomicMaxOperations: 100,
        },
        resources: {
          ...BLOG_RESOURCES,
          tasks: {
            fields: { text: { type: 'string', required: true }, priority: { type: 'integer' } },
            permissions: { editor: { read: true, create: { check: { priority: { lte: 3 } } } } },
          },
        },
      });
      editor = await t.as('editor');
      t.ctx.records.onCommitted((events) => committed.push(events));
      receiver = await startReceiver();
      const subscribed = await t.request({
        method: 'POST',
        url: '/admin/webhooks',
        auth: t.admin,
        payload: { name: 'categories', url: receiver.url(), eventPattern: 'categories.*' },
      });
      assert.equal(subscribed.statusCode, 201, subscribed.body);
    });
    after(async () => {
      await t?.close();
      await receiver?.close();
    });

    const send = (operations: Op[]) =>
      t.request({
        method: 'POST',
        url: '/v1/operations',
        auth: editor,
        headers: { 'content-type': ATOMIC },
        payload: JSON.stringify({ 'atomic:operations': operations }),
      });
    const errorsOf = (response: { json<T>(): T }) => response.json<{ errors: ErrorObject[] }>().errors;
    const count = async (table: string) =>
      Number(
        (
          await t.ctx.store.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const namesLike = async (prefix: string) =>
      (await t.ctx.store.db.selectFrom('categories').select('name').where('name', 'like', `${prefix}%`).execute()).map(
        (row) => row.name,
      );

    it('answers 100 creates in order, with their events stored, heard and delivered in operation order', async () => {
      const eventsBefore = await count(EVENTS_TABLE);
      const deliveriesBefore = await count(DELIVERIES_TABLE);
      const heardBefore = committed.length;
      const operations = Array.from({ length: 100 }, (_, i) => addCategory(`bulk-${String(i).padStart(3, '0')}`));
      const sent = await statementsDuring(async () => {
        const response = await send(operations);
        assert.equal(response.statusCode, 200, response.body);
        const results = response.json<Results>()['atomic:results'];
        assert.deepEqual(
          results.map((result) => result.data!.attributes.name),
          operations.map((operation) => (operation.data as { attributes: { name: string } }).attributes.name),
        );
        const batches = committed.slice(heardBefore);
        assert.equal(batches.length, 1, 'the batch is heard as one commit');
        assert.deepEqual(
          batches[0]!.map((event) => event.resourceId),
          results.map((result) => result.data!.id),
        );
        const stored = await t.ctx.store.db
          .selectFrom(EVENTS_TABLE)
          .select(['id', 'resource_id', 'payload'])
          .orderBy('seq')
          .execute();
        assert.deepEqual(
          stored.slice(eventsBefore).map((row) => row.resource_id),
          results.map((result) => result.data!.id),
        );
        // Each event carries the record as stored, the same as the batch's answer.
        const first = JSON.parse(String(stored[eventsBefore]!.payload)) as {
          data: { new: Record<string, unknown> };
        };
        assert.equal(first.data.new.name, 'bulk-000');
        assert.equal(first.data.new.id, results[0]!.data!.id);
      });
      assert.equal(await count(DELIVERIES_TABLE), deliveriesBefore + 100);
      // Every delivery goes out (waitForRequests fails after its timeout otherwise).
      await receiver.waitForRequests(100, { timeoutMs: 10_000 });
      assert.equal((await namesLike('bulk-')).length, 100);
      if (dialect === 'postgres') {
        // One statement for the hundred rows, their events and their deliveries (it was two hundred).
        const inserts = sent.filter(({ text }) => /insert into "categories"/i.test(text));
        assert.equal(inserts.length, 1, inserts.map(({ text }) => text.slice(0, 80)).join('\n'));
        assert.match(inserts[0]!.text, /insert into "svc_events"/i);
        assert.match(inserts[0]!.text, /insert into "svc_webhook_deliveries"/i);
      }
    });

    it('writes the creates waiting before a write that reads them: updates and removes of records added just before', async () => {
      const heardBefore = committed.length;
      const response = await send([
        addCategory('mixed-a', 'a'),
        addCategory('mixed-b', 'b'),
        {
          op: 'update',
          ref: { type: 'categories', lid: 'a' },
          data: { type: 'categories', lid: 'a', attributes: { description: 'changed' } },
        },
        addCategory('mixed-c', 'c'),
        { op: 'remove', ref: { type: 'categories', lid: 'b' } },
        {
          op: 'add',
          data: {
            type: 'posts',
            attributes: { title: 'in c' },
            relationships: { category: { data: { type: 'categories', lid: 'c' } } },
          },
        },
        addCategory('mixed-d'),
      ]);
      assert.equal(response.statusCode, 200, response.body);
      const results = response.json<Results>()['atomic:results'];
      assert.equal(results[2]!.data!.attributes.description, 'changed');
      assert.deepEqual(results[4], {});
      assert.equal(results[5]!.data!.attributes.category_id, results[3]!.data!.id);
      assert.deepEqual((await namesLike('mixed-')).sort(), ['mixed-a', 'mixed-c', 'mixed-d']);
      assert.deepEqual(
        committed.slice(heardBefore)[0]!.map((event) => event.type),
        [
          'categories.created',
          'categories.created',
          'categories.updated',
          'categories.created',
          'categories.deleted',
          'posts.created',
          'categories.created',
        ],
      );
    });

    it('names the create whose unique value an earlier create of the batch took, and stores nothing', async () => {
      const eventsBefore = await count(EVENTS_TABLE);
      const deliveriesBefore = await count(DELIVERIES_TABLE);
      const heardBefore = committed.length;
      const operations = Array.from({ length: 60 }, (_, i) => addCategory(`clash-${i}`));
      operations[41] = addCategory('clash-7');
      const response = await send(operations);
      assert.equal(response.statusCode, 409, response.body);
      assert.equal(errorsOf(response)[0]!.source?.pointer, '/atomic:operations/41/data/attributes/name');
      // A value taken before the batch is named the same way.
      const taken = await send([addCategory('taken-0'), addCategory('bulk-050'), addCategory('taken-2')]);
      assert.equal(taken.statusCode, 409, taken.body);
      assert.equal(errorsOf(taken)[0]!.source?.pointer, '/atomic:operations/1/data/attributes/name');
      assert.deepEqual(await namesLike('clash-'), []);
      assert.deepEqual(await namesLike('taken-'), []);
      assert.equal(await count(EVENTS_TABLE), eventsBefore);
      assert.equal(await count(DELIVERIES_TABLE), deliveriesBefore);
      assert.equal(committed.length, heardBefore);
    });

    it('names the first failing operation when a later one fails too, after creates that would clash', async () => {
      const operations = Array.from({ length: 30 }, (_, i) => addCategory(`first-${i}`));
      operations[10] = addCategory('first-3');
      operations[25] = { op: 'add', data: { type: 'categories', attributes: { name: 'x'.repeat(81) } } };
      const response = await send(operations);
      assert.equal(response.statusCode, 409, response.body);
      assert.equal(errorsOf(response)[0]!.source?.pointer, '/atomic:operations/10/data/attributes/name');
      assert.deepEqual(await namesLike('first-'), []);
    });

    it("refuses a create its check rule refuses, in the middle of a batch, and keeps the others' rows out", async () => {
      const response = await send([addTask('ok-1', 1), addTask('ok-2', 3), addTask('too high', 9), addTask('ok-3', 2)]);
      assert.equal(response.statusCode, 403, response.body);
      assert.equal(errorsOf(response)[0]!.code, 'FORBIDDEN');
      assert.equal(errorsOf(response)[0]!.source?.pointer, '/atomic:operations/2');
      assert.equal(await count('tasks'), 0);
      const allowed = await send([addTask('ok-1', 1), addTask('ok-2', 3)]);
      assert.equal(allowed.statusCode, 200, allowed.body);
      assert.equal(await count('tasks'), 2);
    });
  });
}
