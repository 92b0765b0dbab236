// Pins the documented choice (docs/roles.md, "What a hidden field still tells"): a change to a field a
// reader cannot see still moves the record's `updated_at`, and so its ETag, in the reader's view. The
// reader learns when the record changed, never what changed; the change itself is not streamed to it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/test-databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

for (const dialect of testDialects()) {
  describe(`a change to a hidden field, as a reader sees it (${dialect})`, () => {
    let t: TestApp;
    let editor: string;
    let reader: string;
    let id: string;

    before(async () => {
      t = await startTestApp(dialect);
      editor = await t.as('editor');
      reader = await t.as('user');
      const created = await t.request({
        method: 'POST',
        url: '/v1/posts',
        auth: editor,
        payload: { title: 'Open', status: 'published', tags: { secret: 1 } },
      });
      assert.equal(created.statusCode, 201, created.body);
      id = created.json().data.id;
    });
    after(() => t.close());

    const read = async () => {
      const response = await t.request({ method: 'GET', url: `/v1/posts/${id}`, auth: reader });
      assert.equal(response.statusCode, 200, response.body);
      return {
        attributes: response.json().data.attributes as Record<string, unknown>,
        etag: String(response.headers.etag),
      };
    };

    it('moves updated_at and the ETag, and shows nothing else of the change', async () => {
      const before = await read();
      assert.ok(!Object.hasOwn(before.attributes, 'tags'), 'tags is hidden from the user role');
      // Wait for the clock to move past the stored timestamp, so the update can get a later one.
      const stamp = Date.parse(String(before.attributes.updated_at));
      while (Date.now() <= stamp + 1) await new Promise((resolve) => setImmediate(resolve));
      const changed = await t.request({
        method: 'PATCH',
        url: `/v1/posts/${id}`,
        auth: editor,
        payload: { tags: { secret: 2 } },
      });
      assert.equal(changed.statusCode, 200, changed.body);

      const after = await read();
      assert.notEqual(after.attributes.updated_at, before.attributes.updated_at, 'updated_at moved');
      assert.notEqual(after.etag, before.etag, 'the ETag moved');
      const { updated_at: _a, ...restAfter } = after.attributes;
      const { updated_at: _b, ...restBefore } = before.attributes;
      assert.deepEqual(restAfter, restBefore, 'every visible value is as it was');
      // The old ETag no longer answers 304: a cache revalidates and gets the same visible values.
      const revalidated = await t.request({
        method: 'GET',
        url: `/v1/posts/${id}`,
        auth: reader,
        headers: { 'if-none-match': before.etag },
      });
      assert.equal(revalidated.statusCode, 200);
    });
  });
}
