// meta.total is reused between requests only while nothing can have changed it (issue 5): every
// write through the API, on another handle, or in another process shows in the next list.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { testDialects } from '../helpers/test-databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { createStore } from '../../src/store/create-store.ts';
import { uuidv7 } from '../../src/store/uuid-v7.ts';

for (const dialect of testDialects()) {
  describe(`list totals on ${dialect}`, () => {
    let t: TestApp;
    let editor: string;
    before(async () => {
      t = await startTestApp(dialect);
      editor = await t.as('editor');
      // Two full pages of one, so the total comes from counting, not from a short page.
      for (const title of ['One', 'Two', 'Three']) {
        const response = await t.request({ method: 'POST', url: '/v1/posts', auth: editor, payload: { title } });
        assert.equal(response.statusCode, 201, response.body);
      }
    });
    after(() => t.close());

    const total = async (query = '_limit=1'): Promise<number> => {
      const response = await t.request({ method: 'GET', url: `/v1/posts?${query}`, auth: editor });
      assert.equal(response.statusCode, 200, response.body);
      return response.json().meta.total;
    };

    it('counts again after a create, a patch that leaves the filter, and a delete through the API', async () => {
      assert.equal(await total(), 3);
      assert.equal(await total('_limit=1&status=draft'), 3);
      const created = await t.request({ method: 'POST', url: '/v1/posts', auth: editor, payload: { title: 'Four' } });
      assert.equal(await total(), 4);
      const id = created.json().data.id;
      await t.request({ method: 'PATCH', url: `/v1/posts/${id}`, auth: editor, payload: { status: 'published' } });
      assert.equal(await total('_limit=1&status=draft'), 3);
      await t.request({ method: 'DELETE', url: `/v1/posts/${id}`, auth: editor });
      assert.equal(await total(), 3);
    });

    it('counts again after a row written by another connection', async () => {
      assert.equal(await total(), 3);
      const other = createStore(t.database.url);
      try {
        const now = new Date().toISOString();
        await sql`insert into posts (id, title, status, views, published, created_at, updated_at)
          values (${uuidv7()}, ${'From elsewhere'}, ${'draft'}, ${0}, ${other.dialect.encode('boolean', false)}, ${other.dialect.encode('timestamp', now)}, ${other.dialect.encode('timestamp', now)})`.execute(other.db);
      } finally {
        await other.close();
      }
      assert.equal(await total(), 4);
      assert.equal(await total('_limit=1&status=draft'), 4);
    });

    it('answers the total of a page that is not full without counting, past the end included', async () => {
      assert.equal(await total('_limit=100'), 4);
      assert.equal(await total('_limit=2&_offset=3'), 4);
      assert.equal(await total('_limit=2&_offset=10'), 4);
    });
  });
}
