// GET /admin/resources/:name/deleted: the soft-deleted records the API no longer shows, for the admin
// token only, newest deletion first, paged, with every field and deleted_at.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';

for (const dialect of testDialects()) {
  describe(`GET /admin/resources/:name/deleted (${dialect})`, () => {
    let t: TestApp;
    let editor: string;
    const ids: string[] = [];
    before(async () => {
      t = await startTestApp(dialect);
      editor = await t.as('editor');
      for (const title of ['first', 'second', 'kept']) {
        const created = await t.request({ method: 'POST', url: '/v1/posts', auth: editor, payload: { title } });
        assert.equal(created.statusCode, 201, created.body);
        ids.push(created.json().data.id as string);
      }
      for (const id of ids.slice(0, 2)) {
        assert.equal((await t.request({ method: 'DELETE', url: `/v1/posts/${id}`, auth: editor })).statusCode, 204);
        // Distinct deletion times, so the order is known.
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    });
    after(() => t.close());

    it('lists the deleted records, last deleted first, with deleted_at, and not the live one', async () => {
      const response = await t.request({ method: 'GET', url: '/admin/resources/posts/deleted', auth: t.admin });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.headers['content-type'], 'application/vnd.api+json');
      const body = response.json();
      assert.equal(body.meta.total, 2);
      assert.deepEqual(
        body.data.map((r: { id: string }) => r.id),
        [ids[1], ids[0]],
      );
      const [latest] = body.data;
      assert.equal(latest.type, 'posts');
      assert.equal(latest.attributes.title, 'second');
      assert.match(latest.attributes.deleted_at, /^\d{4}-\d\d-\d\dT/);
      assert.ok(Date.parse(latest.attributes.deleted_at) >= Date.parse(body.data[1].attributes.deleted_at));
      // Still gone for the API itself.
      assert.equal((await t.request({ method: 'GET', url: `/v1/posts/${ids[0]}`, auth: t.admin })).statusCode, 404);
    });

    it('pages with _limit and _offset', async () => {
      const body = (
        await t.request({ method: 'GET', url: '/admin/resources/posts/deleted?_limit=1&_offset=1', auth: t.admin })
      ).json();
      assert.equal(body.meta.total, 2);
      assert.deepEqual(
        body.data.map((r: { id: string }) => r.id),
        [ids[0]],
      );
    });

    it('answers 404 for an unknown resource or one without soft delete, 400 for an unknown parameter', async () => {
      const unknown = await t.request({ method: 'GET', url: '/admin/resources/nothing/deleted', auth: t.admin });
      assert.equal(unknown.statusCode, 404);
      assert.equal(unknown.json().errors[0].code, 'RESOURCE_NOT_FOUND');
      const hard = await t.request({ method: 'GET', url: '/admin/resources/categories/deleted', auth: t.admin });
      assert.equal(hard.statusCode, 404);
      assert.match(hard.json().errors[0].detail, /soft delete/);
      const bad = await t.request({ method: 'GET', url: '/admin/resources/posts/deleted?status=draft', auth: t.admin });
      assert.equal(bad.statusCode, 400);
      assert.equal(bad.json().errors[0].source.parameter, 'status');
    });

    it('is for the admin token only', async () => {
      assert.equal((await t.request({ method: 'GET', url: '/admin/resources/posts/deleted' })).statusCode, 401);
      const asKey = await t.request({ method: 'GET', url: '/admin/resources/posts/deleted', auth: editor });
      assert.equal(asKey.statusCode, 403);
    });
  });
}
