// Keyset pages (docs/records.md, "Keyset pages"): page[after] / page[before] cursors for any sort,
// links.next / links.prev, refusal of forged or mismatched cursors, stability under concurrent writes,
// and a deep page's query walking an index from the cursor, on every dialect.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql, type CompiledQuery } from 'kysely';
import { testDialects } from '../helpers/test-databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { ListPlans } from '../../src/query/list-plan.ts';
import { VisibleRows } from '../../src/query/visible-rows.ts';
import { MATCH_ALL } from '../../src/model/filter-node.ts';
import { parseListQuery } from '../../src/query/parse-list-query.ts';
import { encodeCursor } from '../../src/query/keyset-cursor.ts';

interface ListAnswer {
  data: { id: string; attributes: Record<string, unknown> }[];
  meta: { total: number };
  links: Record<string, string | undefined>;
}

const SORTS = [
  '',
  '-views,title',
  'rating',
  '-rating',
  'published_at',
  '-publish_on,views',
  'title',
  '-created_at',
  '-id',
  'published,-views',
  'status,rating',
];

for (const dialect of testDialects()) {
  describe(`keyset pages on ${dialect}`, () => {
    let t: TestApp;
    let editor: string;
    before(async () => {
      t = await startTestApp(dialect);
      editor = await t.as('editor');
      for (let i = 0; i < 23; i++) {
        const payload: Record<string, unknown> = {
          title: `Post ${String.fromCharCode(97 + (i % 7))}`,
          views: i % 5,
          status: i % 3 === 0 ? 'draft' : 'published',
          // Every third row leaves the nullable sort fields empty: nulls sort differently per database.
          ...(i % 3 === 1
            ? {}
            : {
                rating: (i % 4) / 2,
                published_at: `2026-01-0${1 + (i % 4)}T00:00:00Z`,
                publish_on: `2026-02-0${1 + (i % 3)}`,
              }),
        };
        const created = await t.request({ method: 'POST', url: '/v1/posts', auth: editor, payload });
        assert.equal(created.statusCode, 201, created.body);
      }
    });
    after(() => t.close());

    const get = async (url: string, auth = editor) => {
      const response = await t.request({ method: 'GET', url, auth });
      assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
      return response.json<ListAnswer>();
    };
    const sortParam = (sort: string) => (sort === '' ? '' : `_sort=${sort}&`);
    const ids = (answer: ListAnswer) => answer.data.map((record) => record.id);

    /** Every id in `from`'s order, following `rel` links until there is none; also checks no page is overfull. */
    async function walk(from: string, rel: 'next' | 'prev', limit: number): Promise<string[]> {
      const seen: string[] = [];
      let url: string | undefined = from;
      for (let pages = 0; url; pages++) {
        assert.ok(pages < 100, 'the walk ends');
        const page = await get(url);
        assert.ok(page.data.length <= limit);
        if (rel === 'next') seen.push(...ids(page));
        else seen.unshift(...ids(page));
        url = page.links[rel];
      }
      return seen;
    }

    for (const sort of SORTS) {
      it(`pages forwards and backwards through _sort=${sort || '(default)'} in the offset order, each record once`, async () => {
        const whole = ids(await get(`/v1/posts?${sortParam(sort)}_limit=1000`));
        assert.equal(whole.length, 23);
        assert.deepEqual(await walk(`/v1/posts?${sortParam(sort)}page[after]=&page[limit]=4`, 'next', 4), whole);
        assert.deepEqual(await walk(`/v1/posts?${sortParam(sort)}page[before]=&page[limit]=4`, 'prev', 4), whole);
      });
    }

    it('makes cursors from the sort values of records whose fields= leaves them out', async () => {
      const whole = ids(await get('/v1/posts?_sort=-views,rating&_limit=1000'));
      const walked = await walk('/v1/posts?_sort=-views,rating&fields=title&page[after]=&_limit=4', 'next', 4);
      assert.deepEqual(walked, whole);
      const page = await get('/v1/posts?_sort=-views&fields=title&page[after]=&_limit=2');
      assert.deepEqual(
        Object.keys(page.data[0]!.attributes).sort(),
        ['created_at', 'title', 'updated_at'],
        'the sort field is still not shown',
      );
    });

    it('links a page to its neighbours with cursors, keeps the filter, and counts the whole filter in meta.total', async () => {
      const first = await get('/v1/posts?status=published&_sort=-views,title&page[after]=&_limit=5');
      assert.equal(first.meta.total, 15);
      assert.equal(first.links.prev, undefined, 'nothing before the first page');
      assert.equal(first.links.first, '/v1/posts?status=published&_sort=-views%2Ctitle&page[after]=&page[limit]=5');
      assert.equal(first.links.last, '/v1/posts?status=published&_sort=-views%2Ctitle&page[before]=&page[limit]=5');
      assert.match(
        first.links.next!,
        /^\/v1\/posts\?status=published&_sort=-views%2Ctitle&page\[after\]=[A-Za-z0-9_-]+&page\[limit\]=5$/,
      );
      const second = await get(first.links.next!);
      assert.equal(second.meta.total, 15, 'the total of the filter, not of the rows after the cursor');
      assert.ok(second.data.every((record) => record.attributes.status === 'published'));
      assert.equal(second.links.self, first.links.next);
      const back = await get(second.links.prev!);
      assert.deepEqual(ids(back), ids(first));
      assert.ok(back.links.next, 'the page before a cursor links on to it');
      const last = await get(first.links.last!);
      assert.equal(last.links.next, undefined, 'nothing after the last page');
      assert.equal(last.data.length, 5);
    });

    it('goes on from a cursor whose record was deleted, and links back from an empty page past the end', async () => {
      const first = await get('/v1/posts?_sort=title&page[after]=&_limit=3');
      const second = await get(first.links.next!);
      const gone = first.data.at(-1)!.id;
      const created = await t.request({ method: 'POST', url: '/v1/posts', auth: editor, payload: { title: 'Post 0' } }); // lands before the cursor
      const extra = created.json().data.id as string;
      assert.equal((await t.request({ method: 'DELETE', url: `/v1/posts/${gone}`, auth: editor })).statusCode, 204);
      try {
        const again = await get(first.links.next!);
        assert.deepEqual(ids(again), ids(second), 'the deleted record still marks the place');
        const [lastRecord] = (await get('/v1/posts?_sort=title&page[before]=&_limit=1')).data;
        const end = await get(
          `/v1/posts?_sort=title&page[after]=${encodeCursor([{ field: 'title', descending: false }], { ...lastRecord!.attributes, id: lastRecord!.id })}`,
        );
        assert.equal(end.data.length, 0);
        assert.equal(end.links.next, undefined);
        assert.ok(end.links.prev?.includes('page[before]='));
      } finally {
        await t.request({ method: 'DELETE', url: `/v1/posts/${extra}`, auth: editor });
        await t.ctx.store.db.updateTable('posts').set({ deleted_at: null }).where('id', '=', gone).execute();
      }
    });

    it('shows every record that exists throughout exactly once while others are inserted and deleted between pages', async () => {
      const before = new Set(ids(await get('/v1/posts?_limit=1000')));
      const inserted: string[] = [];
      const deleted = new Set<string>();
      const seen: string[] = [];
      let url: string | undefined = '/v1/posts?_sort=-views,title&page[after]=&_limit=4';
      let round = 0;
      while (url) {
        const page = await get(url);
        seen.push(...ids(page));
        // Another client meanwhile: rows land before and after the cursor, and rows on both sides go.
        for (const views of [0, 4, 2]) {
          const created = await t.request({
            method: 'POST',
            url: '/v1/posts',
            auth: editor,
            payload: { title: `Concurrent ${round}-${views}`, views },
          });
          inserted.push(created.json().data.id);
        }
        const victims = [...before]
          .filter((id) => !deleted.has(id))
          .filter((_, i) => i % 7 === round % 7)
          .slice(0, 1);
        for (const id of victims) {
          assert.equal((await t.request({ method: 'DELETE', url: `/v1/posts/${id}`, auth: editor })).statusCode, 204);
          deleted.add(id);
        }
        url = page.links.next;
        round++;
      }
      try {
        const throughout = [...before].filter((id) => !deleted.has(id));
        for (const id of throughout) assert.equal(seen.filter((s) => s === id).length, 1, `${id} seen once`);
        assert.equal(new Set(seen).size, seen.length, 'no record repeated');
      } finally {
        for (const id of inserted) await t.request({ method: 'DELETE', url: `/v1/posts/${id}`, auth: editor });
        if (deleted.size > 0)
          await t.ctx.store.db
            .updateTable('posts')
            .set({ deleted_at: null })
            .where('id', 'in', [...deleted])
            .execute();
      }
    });

    it('reads the rows the role may see, with its cursor', async () => {
      const user = await t.as('user');
      const pages = await (async () => {
        const all: string[] = [];
        let url: string | undefined = '/v1/posts?_sort=views&page[after]=&_limit=4';
        while (url) {
          const page = await get(url, user);
          all.push(...ids(page));
          url = page.links.next;
        }
        return all;
      })();
      assert.deepEqual(pages, ids(await get('/v1/posts?_sort=views&_limit=1000', user)));
      assert.equal(pages.length, 15);
    });

    const refused = async (url: string, parameter: string, detail: RegExp) => {
      const response = await t.request({ method: 'GET', url, auth: editor });
      assert.equal(response.statusCode, 400, response.body);
      const [error] = response.json().errors;
      assert.equal(error.code, 'INVALID_QUERY_PARAMS');
      assert.equal(error.source.parameter, parameter);
      assert.match(error.detail, detail);
    };
    const forge = (value: unknown[]) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const anId = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';

    it('refuses a cursor that is not one, was made for another sort, or holds values that do not fit', async () => {
      await refused('/v1/posts?page[after]=not%20a%20cursor', 'page[after]', /not a cursor/);
      await refused(`/v1/posts?page[after]=${forge(['x'])}`, 'page[after]', /not a cursor/);
      await refused(`/v1/posts?_sort=views&page[after]=${forge(['title', 'a', anId])}`, 'page[after]', /_sort='title'/);
      await refused(
        `/v1/posts?_sort=views&page[before]=${forge(['views', '1; drop table posts', anId])}`,
        'page[before]',
        /'views'/,
      );
      await refused(
        `/v1/posts?_sort=published_at&page[after]=${forge(['published_at', 'yesterday', anId])}`,
        'page[after]',
        /'published_at'/,
      );
      await refused(`/v1/posts?page[after]=${forge(['', "' or 1=1 --"])}`, 'page[after]', /no record id/);
    });

    it('binds a cursor value as data', async () => {
      const page = await get(
        `/v1/posts?_sort=title&page[after]=${forge(['title', "Post a' or 1=1 --", anId])}&_limit=100`,
      );
      assert.ok(page.data.every((record) => String(record.attributes.title) > "Post a' or 1=1 --"));
      assert.ok(page.data.length > 0);
    });

    it('refuses a cursor with an offset, and both cursors at once', async () => {
      await refused('/v1/posts?page[after]=&page[offset]=5', 'page[after]', /offset/);
      await refused('/v1/posts?page[before]=&_offset=0', 'page[before]', /offset/);
      await refused('/v1/posts?page[after]=&page[before]=', 'page[before]', /only one/);
    });

    it('keeps offset pages as they were', async () => {
      const page = await get('/v1/posts?page[offset]=5&page[limit]=5');
      assert.equal(page.links.next, '/v1/posts?page[offset]=10&page[limit]=5');
      assert.equal(page.links.prev, '/v1/posts?page[offset]=0&page[limit]=5');
    });

    it('keeps the plans and pages of cursors out of the caches, and the plan of an empty cursor in them', () => {
      const { db, dialect: storeDialect } = t.ctx.store;
      const resource = t.ctx.registry.require('posts');
      const plans = new ListPlans(db, storeDialect, new VisibleRows(storeDialect));
      const planOf = (raw: Record<string, string>) =>
        plans.planOf(resource, MATCH_ALL, parseListQuery(raw, resource, new Set(resource.fieldNames)), ['title']);
      const cursor = { 'page[after]': forge(['', anId]) };
      assert.notEqual(planOf(cursor), planOf(cursor));
      assert.equal(planOf(cursor).pageKey, undefined, 'a walk through a long list does not evict the popular pages');
      assert.equal(planOf({ 'page[after]': '' }), planOf({ 'page[after]': '' }));
      assert.notEqual(planOf({ 'page[after]': '' }), planOf({ 'page[before]': '' }));
      assert.notEqual(planOf({ 'page[after]': '' }).pageKey, undefined);
    });

    it('starts a deep page from the cursor in an index rather than from the start of the table', async () => {
      const { db, dialect: storeDialect } = t.ctx.store;
      const resource = t.ctx.registry.require('posts');
      const plans = new ListPlans(db, storeDialect, new VisibleRows(storeDialect));
      const planOf = (raw: Record<string, string>) => {
        const query = parseListQuery(raw, resource, new Set(resource.fieldNames));
        return plans.planOf(resource, MATCH_ALL, query, ['title', 'views']).page;
      };
      // Both directions: in one of them each database has the empty values after the cursor (two arms).
      const deep = [
        planOf({ 'page[after]': forge(['', anId]) }),
        planOf({ 'page[before]': forge(['', anId]) }),
        planOf({ _sort: 'views', 'page[after]': forge(['views', 3, anId]) }),
        planOf({ _sort: '-views', 'page[after]': forge(['-views', 3, anId]) }),
        planOf({ _sort: 'title', 'page[before]': forge(['title', 'Post c', anId]) }),
      ];
      for (const page of deep) {
        const plan = await explain(page);
        if (process.env.SHOW_PLANS) console.log(page.sql, '\n', plan);
        assert.match(
          plan,
          dialect === 'sqlite'
            ? /SEARCH posts USING (COVERING )?INDEX|SEARCH posts USING PRIMARY KEY|USING INDEX sqlite_autoindex/
            : /Index (Only )?Scan[^\n]*\n[^\n]*Index Cond/,
          plan,
        );
        assert.doesNotMatch(plan, dialect === 'sqlite' ? /SCAN posts(?! USING)/ : /Seq Scan/, plan);
      }

      async function explain(page: CompiledQuery<unknown>): Promise<string> {
        if (dialect === 'sqlite') {
          const rows = await sql.raw<{ detail: string }>(`explain query plan ${inline(page)}`).execute(db);
          return rows.rows.map((row) => row.detail).join('\n');
        }
        // A handful of rows: without this PostgreSQL would rightly read the whole table.
        return db.transaction().execute(async (trx) => {
          await sql`set local enable_seqscan = off`.execute(trx);
          const rows = await sql.raw<{ 'QUERY PLAN': string }>(`explain ${inline(page)}`).execute(trx);
          return rows.rows.map((row) => row['QUERY PLAN']).join('\n');
        });
      }
      /** The statement with its parameters written in (EXPLAIN takes no parameters); they are test values. */
      function inline(page: CompiledQuery<unknown>): string {
        const literal = (value: unknown) =>
          typeof value === 'number' ? String(value) : `'${String(value).replaceAll("'", "''")}'`;
        if (dialect === 'sqlite') {
          let i = 0;
          return page.sql.replace(/\?/g, () => literal(page.parameters[i++]));
        }
        return page.sql.replace(/\$(\d+)/g, (_, n: string) => literal(page.parameters[Number(n) - 1]));
      }
    });
  });
}
