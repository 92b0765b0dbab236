// Records read by id at the same time answer exactly as read one by one: the row filter, field list,
// soft delete and missing ids apply to each. On PostgreSQL such reads share one query (issue 5).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { CompiledQuery } from 'kysely';
import { testDialects } from '../helpers/test-databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

for (const dialect of testDialects()) {
  describe(`records by id read together on ${dialect}`, () => {
    let t: TestApp;
    let user: string;
    const ids: Record<string, string> = {};
    before(async () => {
      t = await startTestApp(dialect);
      const editor = await t.as('editor');
      user = await t.as('user', 'reader-1');
      const create = async (name: string, payload: Record<string, unknown>, auth: string) => {
        const response = await t.request({ method: 'POST', url: '/v1/posts', auth, payload });
        assert.equal(response.statusCode, 201, response.body);
        ids[name] = response.json().data.id;
      };
      await create('published', { title: 'Published', status: 'published', views: 3 }, editor);
      await create('othersDraft', { title: 'Not yours', status: 'draft' }, editor);
      await create('ownDraft', { title: 'Mine', status: 'draft' }, user);
      await create('deleted', { title: 'Gone', status: 'published' }, editor);
      assert.equal(
        (await t.request({ method: 'DELETE', url: `/v1/posts/${ids.deleted}`, auth: editor })).statusCode,
        204,
      );
    });
    after(() => t.close());

    const get = (id: string) => t.request({ method: 'GET', url: `/v1/posts/${id}`, auth: user });
    const answer = (response: Awaited<ReturnType<typeof get>>) => ({
      status: response.statusCode,
      body: response.json() as unknown,
    });

    it('answers each read as it would alone', async () => {
      const asked = [
        ids.published!,
        ids.othersDraft!,
        ids.ownDraft!,
        ids.deleted!,
        '0190f5c2-7a1b-7c3d-8e4f-5a6b7c8d9e0f',
        'not-a-uuid',
        ids.published!,
      ];
      const alone = [];
      for (const id of asked) alone.push(answer(await get(id)));
      assert.deepEqual(
        alone.map((a) => a.status),
        [200, 404, 200, 404, 404, 404, 200],
      );
      const published = alone[0]!.body as { data: { attributes: Record<string, unknown> } };
      assert.equal(published.data.attributes.title, 'Published');
      assert.equal(published.data.attributes.rating, undefined, 'outside the role’s field list');

      const together = (await Promise.all(asked.map(get))).map(answer);
      // Error documents carry a fresh id each; compare everything else.
      const comparable = (a: { status: number; body: unknown }) =>
        a.status === 200
          ? a
          : { status: a.status, codes: (a.body as { errors: Array<{ code: string }> }).errors.map((e) => e.code) };
      assert.deepEqual(together.map(comparable), alone.map(comparable));
    });

    it(
      dialect === 'postgres' ? 'sends reads that arrive together as one query' : 'reads each at once on SQLite',
      async () => {
        const db = t.ctx.store.db;
        const queries: string[] = [];
        const executeQuery = db.executeQuery.bind(db);
        db.executeQuery = ((query: CompiledQuery) => {
          if (/from "posts"/.test(query.sql)) queries.push(query.sql);
          return executeQuery(query);
        }) as typeof db.executeQuery;
        try {
          const responses = await Promise.all([ids.published!, ids.ownDraft!, ids.othersDraft!].map(get));
          assert.deepEqual(
            responses.map((r) => r.statusCode),
            [200, 200, 404],
          );
        } finally {
          db.executeQuery = executeQuery;
        }
        if (dialect === 'postgres') {
          assert.equal(queries.length, 1, queries.join('\n'));
          assert.match(queries[0]!, /= any\(\$1\)/);
        } else {
          assert.deepEqual(queries, [], 'SQLite reads outside a transaction skip Kysely');
        }
      },
    );
  });
}
