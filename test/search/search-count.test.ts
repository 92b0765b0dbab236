// meta.total of a search that is the list's only condition, which SQLite counts in the FTS5 index alone
// (no row read): equal to the count of the rows, through creates, updates and deletes, on both databases,
// and equal to the same search counted with another (always true) condition, which reads the rows.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ResourceDefinition } from '../../src/config/config-types.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';

const RESOURCES: Record<string, ResourceDefinition> = {
  memos: {
    fields: { title: { type: 'string', searchable: true }, views: { type: 'integer' } },
    permissions: { editor: { read: true, create: true, update: true, delete: true } },
  },
};

for (const dialect of testDialects()) {
  describe(`the count of a search alone (${dialect})`, () => {
    let t: TestApp;
    let editor: string;
    before(async () => {
      t = await startTestApp(dialect, { resources: RESOURCES });
      editor = await t.as('editor');
    });
    after(() => t.close());

    const create = async (title: string): Promise<string> => {
      const created = await t.request({ method: 'POST', url: '/v1/memos', auth: editor, payload: { title, views: 1 } });
      assert.equal(created.statusCode, 201, created.body);
      return created.json().data.id as string;
    };
    /** meta.total of the search alone and with a condition every row meets; both must agree. */
    const totals = async (words: string): Promise<number> => {
      const alone = await t.request({ method: 'GET', url: `/v1/memos?_search=${words}&_limit=1`, auth: editor });
      const filtered = await t.request({
        method: 'GET',
        url: `/v1/memos?_search=${words}&views__gte=0&_limit=1`,
        auth: editor,
      });
      assert.equal(alone.statusCode, 200, alone.body);
      const total = alone.json().meta.total as number;
      assert.equal(total, filtered.json().meta.total, 'the index count agrees with the rows');
      return total;
    };

    it('follows creates, updates and deletes exactly', async () => {
      const ids = [await create('plum jam'), await create('Plum tart'), await create('plum'), await create('pear')];
      assert.equal(await totals('plum'), 3);
      assert.equal(await totals('pear'), 1);
      const patched = await t.request({
        method: 'PATCH',
        url: `/v1/memos/${ids[1]}`,
        auth: editor,
        payload: { title: 'pear tart' },
      });
      assert.equal(patched.statusCode, 200, patched.body);
      assert.equal(await totals('plum'), 2);
      assert.equal(await totals('pear'), 2);
      const removed = await t.request({ method: 'DELETE', url: `/v1/memos/${ids[0]}`, auth: editor });
      assert.equal(removed.statusCode, 204, removed.body);
      assert.equal(await totals('plum'), 1);
      assert.equal(await totals('apple'), 0);
    });
  });
}
