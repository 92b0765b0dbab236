// POST /admin/resources/:name/deleted/:id/restore: a soft-deleted record comes back, visible again on
// /v1, with an `updated` event that reaches webhooks; 404 for unknown resources and ids, 409 for a record
// that is not deleted or whose relation points at a deleted record; the admin token only.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';
import { BLOG_RESOURCES } from '../helpers/test-config.ts';
import { startReceiver, type Receiver } from '../webhooks/fixtures/receiver.ts';

for (const dialect of testDialects()) {
  describe(`POST /admin/resources/:name/deleted/:id/restore (${dialect})`, () => {
    let t: TestApp;
    let editor: string;
    let receiver: Receiver;
    const restore = (resource: string, id: string, auth?: string) =>
      t.request({
        method: 'POST',
        url: `/admin/resources/${resource}/deleted/${id}/restore`,
        ...(auth ? { auth } : {}),
      });
    async function deletedPost(fields: Record<string, unknown>): Promise<string> {
      const created = await t.request({ method: 'POST', url: '/v1/posts', auth: editor, payload: fields });
      assert.equal(created.statusCode, 201, created.body);
      const id = created.json().data.id as string;
      assert.equal((await t.request({ method: 'DELETE', url: `/v1/posts/${id}`, auth: editor })).statusCode, 204);
      return id;
    }
    before(async () => {
      t = await startTestApp(dialect, {
        resources: {
          ...BLOG_RESOURCES,
          // Soft-deleted notes on soft-deleted posts: a restore must not revive a note whose post is gone.
          notes: {
            enableSoftDelete: true,
            fields: { post_id: { type: 'relation', resource: 'posts', onDelete: 'restrict' }, text: { type: 'text' } },
            permissions: { editor: { read: true, create: true, update: true, delete: true } },
          },
        },
      });
      editor = await t.as('editor');
      receiver = await startReceiver();
      const hook = await t.request({
        method: 'POST',
        url: '/admin/webhooks',
        auth: t.admin,
        payload: { name: 'restores', url: receiver.url('/hook'), eventPattern: 'posts.updated' },
      });
      assert.equal(hook.statusCode, 201, hook.body);
    });
    after(async () => {
      await t.close();
      await receiver.close();
    });

    it('brings the record back on /v1 and emits an updated event that its webhook receives', async () => {
      const id = await deletedPost({ title: 'gone for a while', status: 'published' });
      assert.equal((await t.request({ method: 'GET', url: `/v1/posts/${id}`, auth: editor })).statusCode, 404);
      const response = await restore('posts', id, t.admin);
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      assert.equal(body.data.type, 'posts');
      assert.equal(body.data.id, id);
      assert.equal(body.data.attributes.title, 'gone for a while');
      assert.equal(body.data.attributes.deleted_at, undefined);
      assert.equal(body.data.links.self, `/v1/posts/${id}`);

      const live = await t.request({ method: 'GET', url: `/v1/posts/${id}`, auth: editor });
      assert.equal(live.statusCode, 200, live.body);
      assert.equal(live.json().data.attributes.title, 'gone for a while');
      const deleted = (await t.request({ method: 'GET', url: '/admin/resources/posts/deleted', auth: t.admin })).json();
      assert.ok(!deleted.data.some((r: { id: string }) => r.id === id), 'no longer listed as deleted');

      const [delivery] = await receiver.waitForRequests(1, { timeoutMs: 10_000 });
      const { event } = JSON.parse(delivery!.body);
      assert.equal(event.type, 'posts.updated');
      assert.equal(event.resourceId, id);
      assert.match(event.data.old.deleted_at, /^\d{4}-/);
      assert.equal(event.data.new.deleted_at, undefined);
      assert.equal(event.data.new.title, 'gone for a while');
      assert.deepEqual(event.data.changes.removed, ['deleted_at']);
    });

    it('answers 409 for a record that is not deleted, and for a second restore', async () => {
      const created = await t.request({ method: 'POST', url: '/v1/posts', auth: editor, payload: { title: 'alive' } });
      const live = await restore('posts', created.json().data.id, t.admin);
      assert.equal(live.statusCode, 409);
      assert.equal(live.json().errors[0].code, 'CONFLICT');
      const id = await deletedPost({ title: 'twice' });
      assert.equal((await restore('posts', id, t.admin)).statusCode, 200);
      assert.equal((await restore('posts', id, t.admin)).statusCode, 409);
    });

    it('answers 409 naming the relation when the record it refers to is gone', async () => {
      const post = await t.request({ method: 'POST', url: '/v1/posts', auth: editor, payload: { title: 'parent' } });
      const postId = post.json().data.id as string;
      const note = await t.request({ method: 'POST', url: '/v1/notes', auth: editor, payload: { post_id: postId } });
      assert.equal(note.statusCode, 201, note.body);
      const noteId = note.json().data.id as string;
      assert.equal((await t.request({ method: 'DELETE', url: `/v1/notes/${noteId}`, auth: editor })).statusCode, 204);
      // No live note refers to the post any more, so it may go too.
      assert.equal((await t.request({ method: 'DELETE', url: `/v1/posts/${postId}`, auth: editor })).statusCode, 204);
      const response = await restore('notes', noteId, t.admin);
      assert.equal(response.statusCode, 409, response.body);
      assert.match(response.json().errors[0].detail, /post_id/);
      assert.equal((await t.request({ method: 'GET', url: `/v1/notes/${noteId}`, auth: editor })).statusCode, 404);
      // Once the post is back, so can the note be.
      assert.equal((await restore('posts', postId, t.admin)).statusCode, 200);
      assert.equal((await restore('notes', noteId, t.admin)).statusCode, 200);
    });

    it('answers 404 for an unknown id, an unknown resource or one without soft delete, 400 for a query parameter', async () => {
      const unknownId = await restore('posts', '0190a0a0-0000-7000-8000-000000000000', t.admin);
      assert.equal(unknownId.statusCode, 404);
      assert.equal(unknownId.json().errors[0].code, 'RESOURCE_NOT_FOUND');
      assert.equal((await restore('nothing', 'x', t.admin)).statusCode, 404);
      assert.equal((await restore('categories', 'x', t.admin)).statusCode, 404);
      const query = await t.request({
        method: 'POST',
        url: '/admin/resources/posts/deleted/x/restore?force=1',
        auth: t.admin,
      });
      assert.equal(query.statusCode, 400);
      assert.equal(query.json().errors[0].source.parameter, 'force');
    });

    it('is for the admin token only: a user key, even the record owner, is 403 and the record stays deleted', async () => {
      const id = await deletedPost({ title: 'still gone' });
      assert.equal((await restore('posts', id)).statusCode, 401);
      assert.equal((await restore('posts', id, editor)).statusCode, 403);
      assert.equal((await restore('posts', id, await t.as('user'))).statusCode, 403);
      assert.equal((await t.request({ method: 'GET', url: `/v1/posts/${id}`, auth: editor })).statusCode, 404);
    });
  });
}
