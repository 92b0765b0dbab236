// GET /v1/:resource/:id/_history: a record's changes from the outbox, newest first, paged, through the
// caller's read permissions: a record outside the row filter answers 404 like the record, a field the
// caller cannot read is never named nor its value shown, a version of the record the caller could not
// read shows no values, and only events within the retention age count.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';
import { readRecordHistory } from '../../src/records/record-history.ts';

interface Entry {
  type: string;
  id: string;
  attributes: {
    resource: string;
    recordId: string;
    kind: string;
    at: string;
    actor: { userId: string | null; role: string };
    fields: string[];
    changes: Record<string, { old?: unknown; new?: unknown }>;
  };
}

for (const dialect of testDialects()) {
  describe(`GET /v1/:resource/:id/_history (${dialect})`, () => {
    let t: TestApp;
    let alice: string;
    let bob: string;
    let editor: string;
    let postId: string;
    const history = (id: string, auth: string, query = '') =>
      t.request({ method: 'GET', url: `/v1/posts/${id}/_history${query}`, auth });
    before(async () => {
      t = await startTestApp(dialect);
      alice = await t.as('user', 'alice');
      bob = await t.as('user', 'bob');
      editor = await t.as('editor');
      const created = await t.request({
        method: 'POST',
        url: '/v1/posts',
        auth: alice,
        payload: { title: 'draft title', body: 'secret draft' },
      });
      assert.equal(created.statusCode, 201, created.body);
      postId = created.json().data.id;
      const steps: [string, Record<string, unknown>][] = [
        [alice, { title: 'better title' }],
        [alice, { status: 'published' }],
        // rating is not readable by users: never named to them.
        [editor, { views: 7, rating: 4.5 }],
      ];
      for (const [auth, payload] of steps) {
        const patched = await t.request({ method: 'PATCH', url: `/v1/posts/${postId}`, auth, payload });
        assert.equal(patched.statusCode, 200, patched.body);
      }
    });
    after(() => t.close());

    it('lists the changes newest first with who, when and which fields, and their values', async () => {
      const response = await history(postId, editor);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.headers['content-type'], 'application/vnd.api+json');
      const body = response.json();
      assert.equal(body.meta.total, 4);
      const entries = body.data as Entry[];
      assert.deepEqual(
        entries.map((e) => e.attributes.kind),
        ['updated', 'updated', 'updated', 'created'],
      );
      const [rated, published, renamed, created] = entries;
      assert.equal(rated!.type, 'record-changes');
      assert.equal(rated!.attributes.recordId, postId);
      assert.deepEqual(rated!.attributes.actor, { userId: 'editor-user', role: 'editor' });
      assert.deepEqual(rated!.attributes.fields.sort(), ['rating', 'views']);
      assert.deepEqual(rated!.attributes.changes.rating, { old: null, new: 4.5 });
      assert.deepEqual(published!.attributes.changes.status, { old: 'draft', new: 'published' });
      assert.deepEqual(renamed!.attributes.actor, { userId: 'alice', role: 'user' });
      assert.deepEqual(renamed!.attributes.changes, { title: { old: 'draft title', new: 'better title' } });
      assert.ok(created!.attributes.fields.includes('title'));
      assert.ok(Date.parse(rated!.attributes.at) >= Date.parse(created!.attributes.at));
    });

    it('never names or shows a field the caller cannot read', async () => {
      const response = await history(postId, alice);
      assert.equal(response.statusCode, 200, response.body);
      const [rated] = response.json().data as Entry[];
      assert.deepEqual(rated!.attributes.fields, ['views']);
      assert.deepEqual(rated!.attributes.changes, { views: { old: 0, new: 7 } });
      assert.doesNotMatch(response.body, /rating|4\.5/);
    });

    it('shows no values of a version the caller could not read (the draft, to another user)', async () => {
      const response = await history(postId, bob);
      assert.equal(response.statusCode, 200, response.body);
      const entries = response.json().data as Entry[];
      const [, published, renamed, created] = entries;
      assert.deepEqual(published!.attributes.changes, { status: { new: 'published' } });
      assert.deepEqual(renamed!.attributes.fields, []);
      assert.deepEqual(renamed!.attributes.changes, {});
      assert.deepEqual(created!.attributes.fields, []);
      assert.doesNotMatch(response.body, /secret draft|draft title/);
    });

    it('answers 404 like the record for one outside the row filter, unknown or malformed', async () => {
      const hidden = await t.request({
        method: 'POST',
        url: '/v1/posts',
        auth: alice,
        payload: { title: 'mine only' },
      });
      const hiddenId = hidden.json().data.id as string;
      const asBob = await history(hiddenId, bob);
      assert.equal(asBob.statusCode, 404);
      assert.equal(asBob.json().errors[0].code, 'RESOURCE_NOT_FOUND');
      assert.equal((await t.request({ method: 'GET', url: `/v1/posts/${hiddenId}`, auth: bob })).statusCode, 404);
      assert.equal((await history('0190a0a0-0000-7000-8000-000000000000', editor)).statusCode, 404);
      assert.equal((await history('not-a-uuid', editor)).statusCode, 404);
      // Deleted: gone, like the record.
      assert.equal((await t.request({ method: 'DELETE', url: `/v1/posts/${hiddenId}`, auth: alice })).statusCode, 204);
      assert.equal((await history(hiddenId, alice)).statusCode, 404);
    });

    it('answers 403 without read access to the resource, 401 without a key', async () => {
      const comment = await t.request({
        method: 'POST',
        url: '/v1/comments',
        auth: editor,
        payload: { post_id: postId, body: 'hi' },
      });
      const commentId = comment.json().data.id as string;
      const asUser = await t.request({ method: 'GET', url: `/v1/comments/${commentId}/_history`, auth: alice });
      assert.equal(asUser.statusCode, 403);
      assert.equal((await t.request({ method: 'GET', url: `/v1/posts/${postId}/_history` })).statusCode, 401);
    });

    it('pages with _limit and _offset, at most 100, and refuses unknown parameters', async () => {
      const page = (await history(postId, editor, '?_limit=1&_offset=1')).json();
      assert.equal(page.meta.total, 4);
      assert.equal(page.data.length, 1);
      assert.equal(page.data[0].attributes.changes.status.new, 'published');
      assert.equal(page.links.next, `/v1/posts/${postId}/_history?page[offset]=2&page[limit]=1`);
      const big = await history(postId, editor, '?_limit=101');
      assert.equal(big.statusCode, 400);
      assert.equal(big.json().errors[0].source.parameter, '_limit');
      const unknown = await history(postId, editor, '?_filter=x');
      assert.equal(unknown.statusCode, 400);
      assert.equal(unknown.json().errors[0].source.parameter, '_filter');
    });

    it('counts only the events within the retention age', async () => {
      const editorPrincipal = { kind: 'admin' } as const;
      const maxAgeMs = 60_000;
      const posts = t.ctx.registry.require('posts');
      const now = await readRecordHistory(t.ctx.store, posts, editorPrincipal, postId, {
        limit: 10,
        offset: 0,
        maxAgeMs,
      });
      assert.equal(now.total, 4);
      const later = await readRecordHistory(t.ctx.store, posts, editorPrincipal, postId, {
        limit: 10,
        offset: 0,
        maxAgeMs,
        now: Date.now() + maxAgeMs + 1000,
      });
      assert.deepEqual(later, { entries: [], total: 0 });
    });
  });
}
