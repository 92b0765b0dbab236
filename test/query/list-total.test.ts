// meta.total and the whole page are reused between requests only while nothing can have
// changed it (issue 5): every write through the API, on another handle, or in another process shows in
// the next list.
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
          values (${uuidv7()}, ${'From elsewhere'}, ${'draft'}, ${0}, ${other.dialect.encode('boolean', false)}, ${other.dialect.encode('timestamp', now)}, ${other.dialect.encode('timestamp', now)})`.execute(
          other.db,
        );
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

    const titles = async (query: string): Promise<string[]> => {
      const response = await t.request({ method: 'GET', url: `/v1/posts?${query}`, auth: editor });
      assert.equal(response.statusCode, 200, response.body);
      return response.json().data.map((post: { attributes: { title: string } }) => post.attributes.title);
    };

    it('shows a patched value in the next page, through the API and from another connection', async () => {
      const query = '_sort=title&_limit=2';
      const first = await titles(query);
      assert.deepEqual(await titles(query), first, 'the same page twice');
      const list = await t.request({ method: 'GET', url: `/v1/posts?${query}`, auth: editor });
      const id = list.json().data[0].id;
      await t.request({ method: 'PATCH', url: `/v1/posts/${id}`, auth: editor, payload: { title: 'AAA patched' } });
      assert.equal((await titles(query))[0], 'AAA patched');
      const other = createStore(t.database.url);
      try {
        await sql`update posts set title = ${'AAA from elsewhere'} where id = ${id}`.execute(other.db);
      } finally {
        await other.close();
      }
      assert.equal((await titles(query))[0], 'AAA from elsewhere');
    });

    it('links a reused page back to the query as each request spelled it, as a JSON:API document', async () => {
      // The same SQL (so the same cached page) reached by two spellings whose links differ.
      const spellings = ['status=draft&_sort=title&_limit=2', '_sort=title&status=draft&_limit=2'];
      const answers = [];
      for (const spelling of [...spellings, ...spellings]) {
        const response = await t.request({ method: 'GET', url: `/v1/posts?${spelling}`, auth: editor });
        assert.equal(response.statusCode, 200, response.body);
        assert.match(String(response.headers['content-type']), /^application\/vnd\.api\+json/);
        answers.push(response.json());
      }
      const selfLinks = answers.map((answer) => decodeURIComponent(answer.links.self));
      assert.equal(selfLinks[0], '/v1/posts?status=draft&_sort=title&page[offset]=0&page[limit]=2');
      assert.equal(selfLinks[1], '/v1/posts?_sort=title&status=draft&page[offset]=0&page[limit]=2');
      assert.deepEqual(selfLinks.slice(2), selfLinks.slice(0, 2), 'a repeat answers as the first time');
      assert.equal(new Set(answers.map((answer) => JSON.stringify(answer.data))).size, 1, 'the same records each time');
    });

    if (dialect === 'postgres') {
      it('reuses a page while nothing committed: the repeat runs no page query and no count', async () => {
        // Any commit in the cluster (the key usage flush, say) moves PostgreSQL's mark and rightly
        // makes the next list read again. Other suites (and other work on the machine) commit all the
        // time, so a repeat is given many chances to land between two commits; without the cache none does.
        const { db } = t.ctx.store;
        const seen: string[] = [];
        const executeQuery = db.executeQuery.bind(db);
        db.executeQuery = ((query: Parameters<typeof executeQuery>[0]) => {
          seen.push('sql' in query ? query.sql : query.compile().sql);
          return executeQuery(query);
        }) as typeof db.executeQuery;
        try {
          const query = '_sort=title&_limit=2';
          let reused = false;
          for (let attempt = 0; attempt < 30 && !reused; attempt++) {
            const first = await titles(query);
            seen.length = 0;
            assert.deepEqual(await titles(query), first);
            reused = !seen.some((text) => /from "posts"/.test(text));
          }
          assert.ok(reused, 'a repeat of the same list read the table again every time');
        } finally {
          db.executeQuery = executeQuery;
        }
      });
    }

    if (dialect === 'sqlite') {
      it('reuses a page while nothing changed: a write on the same connection, outside the API, does not show', async () => {
        // Resource rows change only through the API (or another connection); this proves the page is cached.
        const query = '_sort=title&_limit=3';
        const before = await titles(query);
        await sql`update posts set title = ${'ZZZ unseen'} where title = ${before[0]!}`.execute(t.ctx.store.db);
        assert.deepEqual(await titles(query), before);
        assert.notDeepEqual(await titles('_sort=title&_limit=4'), before, 'another query reads afresh');
      });
    }
  });
}
