// POST /v1/operations (JSON:API Atomic Operations) on SQLite and PostgreSQL: results in order, lids,
// all or nothing with events and deliveries, the caller's permissions per operation, bounds, media
// types, Idempotency-Key, and what an attacker may send.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';
import { EVENTS_TABLE } from '../../src/events/outbox.ts';
import { DELIVERIES_TABLE } from '../../src/webhooks/webhook-tables.ts';
import type { RecordEvent } from '../../src/model/record-event.ts';
import { startReceiver, type Receiver } from '../webhooks/fixtures/receiver.ts';

const ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';

type Op = Record<string, unknown>;
interface ErrorObject {
  code: string;
  status: string;
  detail: string;
  source?: { pointer?: string; parameter?: string };
}

const addCategory = (name: string, lid?: string): Op => ({
  op: 'add',
  data: { type: 'categories', ...(lid ? { lid } : {}), attributes: { name } },
});

for (const dialect of testDialects()) {
  describe(`atomic operations (${dialect})`, () => {
    let t: TestApp;
    let editor: string;
    let receiver: Receiver;
    const committed: RecordEvent[][] = [];

    before(async () => {
      t = await startTestApp(dialect, {
        server: { port: 0, host: '127.0.0.1', cors: { origins: [] }, bodyLimitBytes: 65536, atomicMaxOperations: 60 },
      });
      editor = await t.as('editor');
      t.ctx.records.onCommitted((events) => committed.push(events));
      receiver = await startReceiver();
      const subscribed = await t.request({
        method: 'POST',
        url: '/admin/webhooks',
        auth: t.admin,
        payload: { name: 'all', url: receiver.url(), eventPattern: '*' },
      });
      assert.equal(subscribed.statusCode, 201, subscribed.body);
    });
    after(async () => {
      await t?.close();
      await receiver?.close();
    });

    const send = (operations: unknown, options: { auth?: string; headers?: Record<string, string> } = {}) =>
      t.request({
        method: 'POST',
        url: '/v1/operations',
        auth: options.auth ?? editor,
        headers: { 'content-type': ATOMIC, ...options.headers },
        payload: JSON.stringify(Array.isArray(operations) ? { 'atomic:operations': operations } : operations),
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
    const categoryNamed = async (name: string) =>
      (await t.request({ method: 'GET', url: `/v1/categories?name=${encodeURIComponent(name)}`, auth: editor })).json<{
        data: { id: string }[];
      }>().data;

    it('adds, updates and removes in order, with lids in refs and linkage, and answers each result', async () => {
      const response = await send([
        addCategory('lid-news', 'cat'),
        {
          op: 'add',
          data: {
            type: 'posts',
            lid: 'post',
            attributes: { title: 'first' },
            relationships: { category: { data: { type: 'categories', lid: 'cat' } } },
          },
        },
        {
          op: 'update',
          ref: { type: 'posts', lid: 'post' },
          data: { type: 'posts', lid: 'post', attributes: { title: 'second' } },
        },
        {
          op: 'add',
          data: {
            type: 'comments',
            lid: 'c1',
            attributes: { body: 'hi' },
            relationships: { post: { data: { type: 'posts', lid: 'post' } } },
          },
        },
        { op: 'remove', ref: { type: 'comments', lid: 'c1' } },
        { op: 'update', ref: { type: 'posts', lid: 'post', relationship: 'category' }, data: null },
      ]);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.headers['content-type'], ATOMIC);
      const results = response.json<{
        'atomic:results': { data?: { type: string; id: string; attributes: Record<string, unknown> } }[];
      }>()['atomic:results'];
      assert.equal(results.length, 6);
      const [category, post, updated, comment, removed, unlinked] = results;
      assert.equal(category!.data!.type, 'categories');
      assert.equal(post!.data!.attributes.category_id, category!.data!.id);
      assert.equal(updated!.data!.id, post!.data!.id);
      assert.equal(updated!.data!.attributes.title, 'second');
      assert.equal(comment!.data!.attributes.post_id, post!.data!.id);
      assert.deepEqual(removed, {});
      assert.equal(unlinked!.data!.attributes.category_id, null);
      const stored = await t.request({ method: 'GET', url: `/v1/posts/${post!.data!.id}`, auth: editor });
      assert.equal(stored.json<{ data: { attributes: { title: string } } }>().data.attributes.title, 'second');
      const gone = await t.request({ method: 'GET', url: `/v1/comments/${comment!.data!.id}`, auth: editor });
      assert.equal(gone.statusCode, 404);
    });

    it('answers 204 when no result has data (only removes)', async () => {
      const created = await send([addCategory('to-remove-1'), addCategory('to-remove-2')]);
      const ids = created
        .json<{ 'atomic:results': { data: { id: string } }[] }>()
        ['atomic:results'].map((result) => result.data.id);
      const response = await send(ids.map((id) => ({ op: 'remove', ref: { type: 'categories', id } })));
      assert.equal(response.statusCode, 204, response.body);
      assert.equal(response.body, '');
      assert.equal((await categoryNamed('to-remove-1')).length, 0);
    });

    it('stores nothing and produces no event or delivery when the 50th operation fails, and points at it', async () => {
      const eventsBefore = await count(EVENTS_TABLE);
      const deliveriesBefore = await count(DELIVERIES_TABLE);
      const heardBefore = committed.length;
      const operations: Op[] = Array.from({ length: 55 }, (_, i) => addCategory(`fifty-${i}`));
      operations[49] = { op: 'add', data: { type: 'posts', attributes: { title: 'x'.repeat(201) } } };
      const response = await send(operations);
      assert.equal(response.statusCode, 400, response.body);
      const [error] = errorsOf(response);
      assert.equal(error!.code, 'INVALID_RESOURCE_DATA');
      assert.equal(error!.source?.pointer, '/atomic:operations/49/data/attributes/title');
      assert.equal((await categoryNamed('fifty-0')).length, 0);
      assert.equal((await categoryNamed('fifty-48')).length, 0);
      assert.equal(await count(EVENTS_TABLE), eventsBefore);
      assert.equal(await count(DELIVERIES_TABLE), deliveriesBefore);
      assert.equal(committed.length, heardBefore);
    });

    it('rolls back a batch that a unique field refuses late, with the pointer of that operation', async () => {
      const response = await send([addCategory('dup-a'), addCategory('dup-b'), addCategory('dup-a')]);
      assert.equal(response.statusCode, 409, response.body);
      assert.equal(errorsOf(response)[0]!.source?.pointer, '/atomic:operations/2/data/attributes/name');
      assert.equal((await categoryNamed('dup-a')).length, 0);
      assert.equal((await categoryNamed('dup-b')).length, 0);
    });

    it('commits the events of every operation with the batch, heard and delivered in operation order', async () => {
      const heardBefore = committed.length;
      const eventsBefore = await count(EVENTS_TABLE);
      const deliveriesBefore = receiver.requests.length;
      const response = await send([
        addCategory('order-a', 'a'),
        addCategory('order-b'),
        {
          op: 'update',
          ref: { type: 'categories', lid: 'a' },
          data: { type: 'categories', lid: 'a', attributes: { description: 'd' } },
        },
      ]);
      assert.equal(response.statusCode, 200, response.body);
      const batches = committed.slice(heardBefore);
      assert.equal(batches.length, 1, 'the batch is heard as one commit');
      assert.deepEqual(
        batches[0]!.map((event) => event.type),
        ['categories.created', 'categories.created', 'categories.updated'],
      );
      const rows = await t.ctx.store.db.selectFrom(EVENTS_TABLE).select(['id', 'type']).orderBy('seq').execute();
      assert.deepEqual(
        rows.slice(eventsBefore).map((row) => row.id),
        batches[0]!.map((event) => event.id),
      );
      const delivered = await receiver.waitForRequests(deliveriesBefore + 3);
      const ids = delivered.slice(deliveriesBefore).map((request) => (JSON.parse(request.body) as { id: string }).id);
      assert.deepEqual([...ids].sort(), batches[0]!.map((event) => event.id).sort());
    });

    it('removes a record created earlier in the same batch', async () => {
      const response = await send([
        addCategory('short-lived', 'x'),
        { op: 'remove', ref: { type: 'categories', lid: 'x' } },
        addCategory('stays'),
      ]);
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json<{ 'atomic:results': unknown[] }>()['atomic:results'][1], {});
      assert.equal((await categoryNamed('short-lived')).length, 0);
      assert.equal((await categoryNamed('stays')).length, 1);
    });

    it('follows a chain of lids: each record refers to the one before it', async () => {
      const operations: Op[] = [{ op: 'add', data: { type: 'posts', lid: 'p', attributes: { title: 'chain' } } }];
      for (let i = 0; i < 20; i++) {
        operations.push({
          op: 'add',
          data: {
            type: 'comments',
            lid: `c${i}`,
            attributes: { body: `c${i}` },
            relationships: { post: { data: { type: 'posts', lid: 'p' } } },
          },
        });
        if (i > 0)
          operations.push({
            op: 'update',
            ref: { type: 'comments', lid: `c${i - 1}` },
            data: { type: 'comments', lid: `c${i - 1}`, attributes: { rating: (i % 5) + 1 } },
          });
      }
      const response = await send(operations);
      assert.equal(response.statusCode, 200, response.body);
      const results = response.json<{
        'atomic:results': { data: { id: string; attributes: Record<string, unknown> } }[];
      }>()['atomic:results'];
      const postId = results[0]!.data.id;
      assert.ok(results.slice(1).every((result) => result.data.attributes.post_id === postId));
    });

    it("applies the caller's permissions to each operation: a refusal in the middle undoes the ones before", async () => {
      const author = await t.as('user', 'author-1');
      const foreign = await t.request({
        method: 'POST',
        url: '/v1/posts',
        auth: editor,
        payload: { title: 'not yours', author_id: 'someone-else', status: 'published' },
      });
      const foreignId = foreign.json<{ data: { id: string } }>().data.id;
      const own = { op: 'add', data: { type: 'posts', attributes: { title: 'mine-perm' } } };
      const refused = await send(
        [
          own,
          {
            op: 'update',
            ref: { type: 'posts', id: foreignId },
            data: { type: 'posts', id: foreignId, attributes: { title: 'taken over' } },
          },
          own,
        ],
        { auth: author },
      );
      assert.equal(refused.statusCode, 403, refused.body);
      assert.equal(errorsOf(refused)[0]!.code, 'FORBIDDEN');
      assert.equal(errorsOf(refused)[0]!.source?.pointer, '/atomic:operations/1');
      const mine = await t.request({ method: 'GET', url: '/v1/posts?title=mine-perm', auth: editor });
      assert.equal(mine.json<{ data: unknown[] }>().data.length, 0);
      // A field the role may not write, and an action it lacks.
      const field = await send([own, { op: 'add', data: { type: 'posts', attributes: { title: 't', views: 3 } } }], {
        auth: author,
      });
      assert.equal(field.statusCode, 400, field.body);
      assert.equal(errorsOf(field)[0]!.source?.pointer, '/atomic:operations/1/data/attributes/views');
      const action = await send([own, addCategory('not-allowed')], { auth: author });
      assert.equal(action.statusCode, 403, action.body);
      assert.equal(errorsOf(action)[0]!.source?.pointer, '/atomic:operations/1');
      // The preset applies: the post is the caller's.
      const allowed = await send([own], { auth: author });
      assert.equal(allowed.statusCode, 200, allowed.body);
      assert.equal(
        allowed.json<{ 'atomic:results': { data: { attributes: { author_id: string } } }[] }>()['atomic:results'][0]!
          .data.attributes.author_id,
        'author-1',
      );
      // The admin token never writes through /v1, in a batch as elsewhere.
      const admin = await send([addCategory('by-admin')], { auth: t.admin });
      assert.equal(admin.statusCode, 403, admin.body);
      assert.equal(errorsOf(admin)[0]!.code, 'ADMIN_TOKEN_NOT_ALLOWED');
    });

    it('keeps two batches racing on the same rows whole: the rows end as one of them left them', async () => {
      const created = await send([addCategory('race-1'), addCategory('race-2')]);
      const [one, two] = created
        .json<{ 'atomic:results': { data: { id: string } }[] }>()
        ['atomic:results'].map((result) => result.data.id);
      const batch = (label: string) =>
        send(
          [one, two].map((id) => ({
            op: 'update',
            ref: { type: 'categories', id },
            data: { type: 'categories', id, attributes: { description: label } },
          })),
        );
      for (let round = 0; round < 5; round++) {
        const answers = await Promise.all([batch(`a${round}`), batch(`b${round}`), batch(`c${round}`)]);
        for (const answer of answers) assert.equal(answer.statusCode, 200, answer.body);
        const rows = await t.ctx.store.db
          .selectFrom('categories')
          .select(['id', 'description'])
          .where('id', 'in', [one!, two!])
          .execute();
        assert.equal(
          new Set(rows.map((row) => row.description)).size,
          1,
          `the rows were left by different batches: ${JSON.stringify(rows)}`,
        );
      }
      // One removes a row while another updates it: one of them fails whole, never half.
      const [removed, updated] = await Promise.all([
        send([{ op: 'remove', ref: { type: 'categories', id: two } }, addCategory('race-removed-marker')]),
        send([
          {
            op: 'update',
            ref: { type: 'categories', id: two },
            data: { type: 'categories', id: two, attributes: { description: 'late' } },
          },
          addCategory('race-updated-marker'),
        ]),
      ]);
      assert.equal(removed.statusCode, 200, removed.body);
      const marker = await categoryNamed('race-updated-marker');
      assert.equal(marker.length, updated.statusCode === 200 ? 1 : 0, updated.body);
      if (updated.statusCode !== 200) assert.equal(errorsOf(updated)[0]!.source?.pointer, '/atomic:operations/0');
    });

    it('keeps a batch whole when a write beside it fails (on SQLite the two may share a group commit)', async () => {
      await send([addCategory('beside-taken')]);
      const heardBefore = committed.length;
      const [batch, failing] = await Promise.all([
        send([addCategory('beside-1'), addCategory('beside-2')]),
        t.request({ method: 'POST', url: '/v1/categories', auth: editor, payload: { name: 'beside-taken' } }),
      ]);
      assert.equal(batch.statusCode, 200, batch.body);
      assert.equal(failing.statusCode, 409, failing.body);
      assert.equal((await categoryNamed('beside-1')).length, 1);
      assert.equal((await categoryNamed('beside-2')).length, 1);
      const heard = committed
        .slice(heardBefore)
        .flat()
        .map((event) => event.type);
      assert.deepEqual(heard, ['categories.created', 'categories.created'], 'each event of the batch is heard once');
    });

    it('counts against the rate limit once per operation and answers the window in RateLimit-* headers', async () => {
      const first = await send([addCategory('rl-1'), addCategory('rl-2'), addCategory('rl-3'), addCategory('rl-4')]);
      assert.equal(first.statusCode, 200, first.body);
      const before = Number(first.headers['ratelimit-remaining']);
      const next = await send([addCategory('rl-5'), addCategory('rl-6'), addCategory('rl-7')]);
      assert.equal(Number(next.headers['ratelimit-remaining']), before - 3);
    });

    it('replays the answer for a repeated Idempotency-Key and refuses the key with another body', async () => {
      const operations = [addCategory('idem-1'), addCategory('idem-2')];
      const first = await send(operations, { headers: { 'idempotency-key': 'batch-1' } });
      assert.equal(first.statusCode, 200, first.body);
      const again = await send(operations, { headers: { 'idempotency-key': 'batch-1' } });
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(again.headers['idempotency-replayed'], 'true');
      assert.equal(again.headers['content-type'], ATOMIC);
      assert.equal(again.body, first.body);
      assert.equal((await categoryNamed('idem-1')).length, 1);
      const other = await send([addCategory('idem-3')], { headers: { 'idempotency-key': 'batch-1' } });
      assert.equal(other.statusCode, 422, other.body);
      assert.equal(errorsOf(other)[0]!.code, 'IDEMPOTENCY_KEY_REUSED');
      // A batch that fails gives its key back: the same key runs again once the body is fixed.
      const failing = await send([addCategory('idem-dup'), addCategory('idem-dup')], {
        headers: { 'idempotency-key': 'batch-2' },
      });
      assert.equal(failing.statusCode, 409);
      assert.equal((await categoryNamed('idem-dup')).length, 0);
    });

    describe('media types', () => {
      const body = JSON.stringify({ 'atomic:operations': [addCategory('media')] });
      const post = (headers: Record<string, string>) =>
        t.request({ method: 'POST', url: '/v1/operations', auth: editor, headers, payload: body });

      it('refuses another extension, an unknown parameter, or no extension with 415', async () => {
        for (const type of [
          'application/vnd.api+json; ext="https://example.com/other"',
          'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic https://example.com/other"',
          'application/vnd.api+json; charset=utf-8',
          'application/vnd.api+json',
          'application/json',
        ]) {
          const response = await post({ 'content-type': type });
          assert.equal(response.statusCode, 415, `${type}: ${response.body}`);
          assert.equal(errorsOf(response)[0]!.code, 'UNSUPPORTED_MEDIA_TYPE');
        }
        assert.equal((await categoryNamed('media')).length, 0);
      });

      it('honours Accept as JSON:API 1.1 says', async () => {
        const refused = [
          'application/vnd.api+json; ext="https://example.com/other"',
          'application/vnd.api+json; charset=utf-8',
          'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"; foo=bar',
        ];
        for (const accept of refused) {
          const response = await post({ 'content-type': ATOMIC, accept });
          assert.equal(response.statusCode, 406, `${accept}: ${response.body}`);
        }
        const taken = [
          ATOMIC,
          'application/vnd.api+json',
          '*/*',
          `application/vnd.api+json; charset=utf-8, ${ATOMIC}`,
          'application/vnd.api+json; profile="https://example.com/p"',
        ];
        for (const [i, accept] of taken.entries()) {
          const response = await t.request({
            method: 'POST',
            url: '/v1/operations',
            auth: editor,
            headers: { 'content-type': ATOMIC, accept },
            payload: JSON.stringify({ 'atomic:operations': [addCategory(`accept-${i}`)] }),
          });
          assert.equal(response.statusCode, 200, `${accept}: ${response.body}`);
        }
      });

      it('still refuses parameters on the JSON:API type elsewhere', async () => {
        const response = await t.request({
          method: 'POST',
          url: '/v1/categories',
          auth: editor,
          headers: { 'content-type': ATOMIC },
          payload: JSON.stringify({ name: 'elsewhere' }),
        });
        assert.equal(response.statusCode, 415);
      });

      it('authenticates before it reads the body', async () => {
        const response = await t.request({
          method: 'POST',
          url: '/v1/operations',
          headers: { 'content-type': ATOMIC },
          payload: '{not json',
        });
        assert.equal(response.statusCode, 401);
      });

      it('answers other methods with 405', async () => {
        const response = await t.request({ method: 'GET', url: '/v1/operations', auth: editor });
        assert.equal(response.statusCode, 405);
        assert.equal(response.headers.allow, 'POST');
      });
    });

    describe('attacker input', () => {
      const refusedWith = async (operations: unknown, code: string, pointer?: string, status = 400) => {
        const eventsBefore = await count(EVENTS_TABLE);
        const response = await send(operations);
        assert.equal(response.statusCode, status, response.body);
        const errors = errorsOf(response);
        assert.equal(errors[0]!.code, code, response.body);
        if (pointer !== undefined)
          assert.ok(
            errors.some((error) => error.source?.pointer === pointer),
            response.body,
          );
        assert.equal(await count(EVENTS_TABLE), eventsBefore);
        return errors;
      };

      it('refuses more operations than server.atomicMaxOperations, and a body past the limit', async () => {
        await refusedWith(
          Array.from({ length: 61 }, (_, i) => addCategory(`many-${i}`)),
          'TOO_MANY_OPERATIONS',
          '/atomic:operations',
          413,
        );
        const huge = Array.from({ length: 50 }, (_, i) => ({
          op: 'add',
          data: { type: 'categories', attributes: { name: `big-${i}`, description: 'x'.repeat(2000) } },
        }));
        const response = await send(huge);
        assert.equal(response.statusCode, 413, response.body);
        assert.equal(errorsOf(response)[0]!.code, 'PAYLOAD_TOO_LARGE');
      });

      it('refuses documents that are not atomic operations', async () => {
        await refusedWith({ data: { type: 'categories' } }, 'INVALID_OPERATIONS', '');
        await refusedWith({ 'atomic:operations': {} }, 'INVALID_OPERATIONS', '');
        await refusedWith({ 'atomic:operations': [], extra: 1 }, 'INVALID_OPERATIONS', '/extra');
        await refusedWith(['nope'], 'INVALID_OPERATIONS', '/atomic:operations/0');
        await refusedWith([{ op: 'merge', data: {} }], 'INVALID_OPERATIONS', '/atomic:operations/0/op');
        await refusedWith(
          [{ op: 'remove', href: '/v1/categories/x' }],
          'INVALID_OPERATIONS',
          '/atomic:operations/0/href',
        );
        await refusedWith([{ op: 'remove' }], 'INVALID_OPERATIONS', '/atomic:operations/0');
        await refusedWith(
          [{ op: 'update', ref: { type: 'categories', id: 'a', lid: 'b' }, data: null }],
          'INVALID_OPERATIONS',
          '/atomic:operations/0/ref',
        );
        await refusedWith(
          [{ op: 'add', ref: { type: 'posts' }, data: { type: 'categories', attributes: { name: 'n' } } }],
          'INVALID_OPERATIONS',
          '/atomic:operations/0/ref',
        );
        await refusedWith(
          [
            {
              op: 'add',
              ref: { type: 'categories', relationship: 'posts' },
              data: { type: 'categories', attributes: { name: 'n' } },
            },
          ],
          'INVALID_OPERATIONS',
          '/atomic:operations/0/ref/relationship',
        );
        await refusedWith(
          [
            {
              op: 'add',
              ref: { type: 'categories', lid: 'x' },
              data: { type: 'categories', lid: 'y', attributes: { name: 'n' } },
            },
          ],
          'INVALID_OPERATIONS',
          '/atomic:operations/0/ref',
        );
      });

      it('refuses lids used before their add, reused, of another type, or too long', async () => {
        await refusedWith(
          [{ op: 'remove', ref: { type: 'categories', lid: 'later' } }, addCategory('lid-later', 'later')],
          'INVALID_OPERATIONS',
          '/atomic:operations/0/ref/lid',
        );
        await refusedWith(
          [addCategory('reuse-1', 'same'), addCategory('reuse-2', 'same')],
          'INVALID_OPERATIONS',
          '/atomic:operations/1/data/lid',
        );
        await refusedWith(
          [addCategory('typed', 'k'), { op: 'remove', ref: { type: 'posts', lid: 'k' } }],
          'INVALID_OPERATIONS',
          '/atomic:operations/1/ref/lid',
        );
        await refusedWith(
          [addCategory('long', 'l'.repeat(256))],
          'INVALID_OPERATIONS',
          '/atomic:operations/0/data/lid',
        );
        // A lid that names itself in its own linkage is not defined yet: no cycle can form.
        await refusedWith(
          [
            {
              op: 'add',
              data: {
                type: 'comments',
                lid: 'self',
                attributes: { body: 'x' },
                relationships: { post: { data: { type: 'posts', lid: 'self' } } },
              },
            },
          ],
          'INVALID_OPERATIONS',
          '/atomic:operations/0/data/relationships/post/data/lid',
        );
        assert.equal((await categoryNamed('lid-later')).length, 0);
      });

      it('treats prototype names as plain names: unknown types and undefined lids', async () => {
        for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
          await refusedWith(
            [{ op: 'add', data: { type: name, attributes: {} } }],
            'RESOURCE_NOT_FOUND',
            '/atomic:operations/0/data/type',
            404,
          );
          await refusedWith(
            [{ op: 'remove', ref: { type: 'categories', lid: name } }],
            'INVALID_OPERATIONS',
            '/atomic:operations/0/ref/lid',
          );
        }
        const response = await send([
          addCategory('proto-lid', 'constructor'),
          {
            op: 'update',
            ref: { type: 'categories', lid: 'constructor' },
            data: { type: 'categories', lid: 'constructor', attributes: { description: 'ok' } },
          },
        ]);
        assert.equal(response.statusCode, 200, response.body);
        await refusedWith(
          [{ op: 'remove', ref: { type: 'nothing-here', id: '01900000-0000-7000-8000-000000000000' } }],
          'RESOURCE_NOT_FOUND',
          '/atomic:operations/0/ref/type',
          404,
        );
      });

      it('answers a missing record in a ref with 404 naming the operation', async () => {
        await refusedWith(
          [
            addCategory('before-missing'),
            { op: 'remove', ref: { type: 'categories', id: '01900000-0000-7000-8000-000000000000' } },
          ],
          'RESOURCE_NOT_FOUND',
          '/atomic:operations/1',
          404,
        );
        assert.equal((await categoryNamed('before-missing')).length, 0);
      });

      it('answers a remove the database refuses (a record still referenced) with 409 naming the operation', async () => {
        await refusedWith(
          [
            addCategory('still-held', 'held'),
            {
              op: 'add',
              data: {
                type: 'posts',
                attributes: { title: 'holds it' },
                relationships: { category: { data: { type: 'categories', lid: 'held' } } },
              },
            },
            { op: 'remove', ref: { type: 'categories', lid: 'held' } },
          ],
          'CONFLICT',
          '/atomic:operations/2',
          409,
        );
        assert.equal((await categoryNamed('still-held')).length, 0);
      });
    });
  });
}
