// JSON:API relationships on every dialect: linkage on relation fields, the to-many side of a relation,
// compound documents (`include`, nested), sparse fieldsets per type, the bounds, and that related
// records are read with one statement per relationship path, each through the caller's permissions.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { CompiledQuery } from 'kysely';
import { testDialects, type TestDialect } from '../helpers/test-databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { statementsDuring } from '../helpers/sent-statements.ts';
import type { ResourceDefinition } from '../../src/config/config-types.ts';

const ALL = { read: true, create: true, update: true, delete: true } as const;

const RESOURCES: Record<string, ResourceDefinition> = {
  companies: {
    fields: { name: { type: 'string', required: true } },
    permissions: { editor: ALL, reader: { read: true } },
  },
  authors: {
    fields: {
      name: { type: 'string', required: true, sortable: true },
      secret: { type: 'string' },
      public: { type: 'boolean', default: true },
      company_id: { type: 'relation', resource: 'companies', onDelete: 'set_null' },
    },
    permissions: {
      editor: ALL,
      reader: { read: { fields: ['name', 'company_id'], filter: { public: { eq: true } } } },
    },
  },
  posts: {
    fields: {
      title: { type: 'string', required: true, sortable: true },
      author_id: { type: 'relation', resource: 'authors', onDelete: 'set_null' },
      editor_id: { type: 'relation', resource: 'authors', onDelete: 'set_null' },
    },
    permissions: { editor: ALL, reader: { read: true } },
  },
  notes: {
    fields: { text: { type: 'string' }, post_id: { type: 'relation', resource: 'posts', onDelete: 'cascade' } },
    permissions: { editor: ALL },
  },
};

/** The SQL of every statement svc sends while `work` runs, on either database. */
async function statementTexts(t: TestApp, dialect: TestDialect, work: () => Promise<unknown>): Promise<string[]> {
  if (dialect === 'postgres') return (await statementsDuring(work)).map(({ text }) => text);
  // SQLite reads outside a transaction go through the store's readNow (else through Kysely).
  const store = t.ctx.store as {
    readNow: (query: CompiledQuery) => unknown;
    db: { executeQuery: (query: CompiledQuery) => unknown };
  };
  const readNow = store.readNow;
  const texts: string[] = [];
  store.readNow = (query) => {
    texts.push(query.sql);
    return readNow(query);
  };
  try {
    await work();
  } finally {
    store.readNow = readNow;
  }
  return texts;
}

for (const dialect of testDialects()) {
  describe(`relationships on ${dialect}`, () => {
    let t: TestApp;
    let editor: string;
    let reader: string;
    const ids: Record<string, string> = {};
    const create = async (resource: string, payload: object) => {
      const response = await t.request({ method: 'POST', url: `/v1/${resource}`, auth: editor, payload });
      assert.equal(response.statusCode, 201, response.body);
      return response.json().data.id as string;
    };

    before(async () => {
      t = await startTestApp(dialect, {
        resources: RESOURCES,
        server: { port: 0, host: '127.0.0.1', cors: { origins: [] }, bodyLimitBytes: 1048576, includeMaxRecords: 4 },
      });
      editor = await t.as('editor');
      reader = await t.as('reader');
      ids.acme = await create('companies', { name: 'Acme' });
      ids.ann = await create('authors', { name: 'Ann', secret: 's1', company_id: ids.acme });
      ids.bob = await create('authors', { name: 'Bob', secret: 's2', public: false, company_id: ids.acme });
      ids.cid = await create('authors', { name: 'Cid' });
      ids.p1 = await create('posts', { title: 'p1', author_id: ids.ann, editor_id: ids.cid });
      ids.p2 = await create('posts', { title: 'p2', author_id: ids.ann });
      ids.p3 = await create('posts', { title: 'p3', author_id: ids.bob, editor_id: ids.ann });
    });
    after(() => t.close());

    it('shows each readable relation field as a to-one relationship, its id kept among the attributes', async () => {
      const response = await t.request({ method: 'GET', url: `/v1/posts/${ids.p2}`, auth: editor });
      assert.equal(response.statusCode, 200, response.body);
      const { data } = response.json();
      assert.deepEqual(data.relationships, {
        author: { data: { type: 'authors', id: ids.ann }, links: { related: `/v1/authors/${ids.ann}` } },
        editor: { data: null },
      });
      assert.equal(data.attributes.author_id, ids.ann);
      const sparse = await t.request({ method: 'GET', url: `/v1/posts?fields=title&title=p2`, auth: editor });
      assert.equal(sparse.json().data[0].relationships, undefined);
    });

    it("includes to-one records, nested, each once, through the caller's fields and row filter", async () => {
      const response = await t.request({
        method: 'GET',
        url: '/v1/posts?include=author.company,editor&_sort=title',
        auth: reader,
      });
      assert.equal(response.statusCode, 200, response.body);
      const document = response.json();
      assert.deepEqual(
        document.data.map((post: { id: string }) => post.id),
        [ids.p1, ids.p2, ids.p3],
      );
      const included = document.included as { type: string; id: string; attributes: Record<string, unknown> }[];
      // Bob is not public: the reader may not read him, so he is not included (nor is anything through him).
      assert.deepEqual(
        included.map(({ type, id }) => `${type}/${id}`).sort(),
        [`authors/${ids.ann}`, `authors/${ids.cid}`, `companies/${ids.acme}`].sort(),
      );
      const ann = included.find((record) => record.id === ids.ann)!;
      assert.deepEqual(Object.keys(ann.attributes).sort(), ['company_id', 'created_at', 'name', 'updated_at']);
      assert.ok(document.links.next === undefined && document.links.self.includes('include=author.company%2Ceditor'));
    });

    it('includes on GET of one record, with sparse fieldsets per type', async () => {
      const response = await t.request({
        method: 'GET',
        url: `/v1/posts/${ids.p1}?include=author&fields[posts]=title,author&fields[authors]=name`,
        auth: editor,
      });
      assert.equal(response.statusCode, 200, response.body);
      const { data, included } = response.json();
      assert.deepEqual(Object.keys(data.attributes).sort(), ['author_id', 'created_at', 'title', 'updated_at']);
      assert.deepEqual(Object.keys(data.relationships), ['author']);
      assert.equal(included.length, 1);
      assert.deepEqual(Object.keys(included[0].attributes).sort(), ['created_at', 'name', 'updated_at']);
      // A list whose fieldset leaves the relation field out still includes through it, without its linkage.
      const list = await t.request({
        method: 'GET',
        url: `/v1/posts?title=p1&fields=title&include=author`,
        auth: editor,
      });
      assert.equal(list.statusCode, 200, list.body);
      assert.deepEqual(
        list.json().included.map((record: { id: string }) => record.id),
        [ids.ann],
      );
      assert.equal(list.json().data[0].attributes.author_id, undefined);
      assert.equal(list.json().data[0].relationships, undefined);
      const missing = await t.request({ method: 'GET', url: `/v1/posts/${ids.p2}`, auth: editor });
      assert.equal(missing.json().included, undefined);
    });

    it("includes the to-many side of a relation, with its linkage, through the caller's row filter", async () => {
      const response = await t.request({
        method: 'GET',
        url: `/v1/companies/${ids.acme}?include=authors`,
        auth: reader,
      });
      assert.equal(response.statusCode, 200, response.body);
      const { data, included } = response.json();
      // Bob works at Acme too, but the reader may not read him: neither included nor linked.
      assert.deepEqual(data.relationships.authors, {
        data: [{ type: 'authors', id: ids.ann }],
        links: { related: `/v1/companies/${ids.acme}/authors` },
      });
      assert.deepEqual(
        included.map((record: { id: string }) => record.id),
        [ids.ann],
      );
      const nested = await t.request({
        method: 'GET',
        url: `/v1/posts/${ids.p2}?include=author.company.authors`,
        auth: editor,
      });
      assert.equal(nested.statusCode, 200, nested.body);
      const types = nested
        .json()
        .included.map(({ type, id }: { type: string; id: string }) => `${type}/${id}`)
        .sort();
      assert.deepEqual(types, [`authors/${ids.ann}`, `authors/${ids.bob}`, `companies/${ids.acme}`].sort());
      // Several fields of posts refer to authors: the name would not say which, so it is not includable.
      const ambiguous = await t.request({ method: 'GET', url: `/v1/authors/${ids.ann}?include=posts`, auth: editor });
      assert.equal(ambiguous.statusCode, 400, ambiguous.body);
    });

    it('reads each relationship path with one statement, whatever the number of records', async () => {
      const texts = await statementTexts(t, dialect, () =>
        t.request({ method: 'GET', url: '/v1/posts?include=author.company,editor', auth: editor }),
      );
      const reading = (table: string) => texts.filter((text) => new RegExp(`from "${table}"`, 'i').test(text)).length;
      // author and editor are two paths to authors: one statement each; author.company one more.
      assert.equal(reading('authors'), 2, texts.join('\n'));
      assert.equal(reading('companies'), 1, texts.join('\n'));
      const toMany = await statementTexts(t, dialect, () =>
        t.request({ method: 'GET', url: '/v1/companies?include=authors', auth: editor }),
      );
      assert.equal(toMany.filter((text) => /from "authors"/i.test(text)).length, 1, toMany.join('\n'));
    });

    const refused: [string, string, string, string][] = [
      ['an unknown relationship', '/v1/posts?include=nope', 'include', 'INVALID_QUERY_PARAMS'],
      ['a path past includeMaxDepth', '/v1/posts?include=author.company.a.b', 'include', 'INVALID_QUERY_PARAMS'],
      ['an unknown type in fields[]', '/v1/posts?fields[nope]=a', 'fields[nope]', 'INVALID_QUERY_PARAMS'],
      ['a field not readable in fields[]', '/v1/posts?fields[authors]=secret', 'fields[authors]', 'INVALID_FIELDS'],
      [
        'fields and fields[posts] together',
        '/v1/posts?fields=title&fields[posts]=title',
        'fields[posts]',
        'INVALID_QUERY_PARAMS',
      ],
      [
        'a type the caller may not read in fields[]',
        '/v1/posts?fields[notes]=text',
        'fields[notes]',
        'INVALID_QUERY_PARAMS',
      ],
    ];
    for (const [name, url, parameter, code] of refused) {
      it(`answers 400 naming the parameter for ${name}`, async () => {
        const response = await t.request({ method: 'GET', url, auth: reader });
        assert.equal(response.statusCode, 400, response.body);
        const [error] = response.json().errors;
        assert.equal(error.code, code);
        assert.equal(error.source.parameter, parameter);
      });
    }

    it('answers 400 past includeMaxRecords', async () => {
      for (let i = 0; i < 4; i++) {
        const author = await create('authors', { name: `many${i}` });
        await create('posts', { title: 'many', author_id: author });
      }
      const response = await t.request({ method: 'GET', url: '/v1/posts?title=many&include=author', auth: editor });
      assert.equal(response.statusCode, 200, response.body);
      const more = await create('authors', { name: 'many4' });
      await create('posts', { title: 'many', author_id: more });
      const past = await t.request({ method: 'GET', url: '/v1/posts?title=many&include=author', auth: editor });
      assert.equal(past.statusCode, 400, past.body);
      assert.equal(past.json().errors[0].source.parameter, 'include');
    });

    it("lists the to-many side of a relation with the list query language and the caller's row filter", async () => {
      const authors = await t.request({
        method: 'GET',
        url: `/v1/companies/${ids.acme}/authors?fields=name&_sort=-name`,
        auth: reader,
      });
      assert.equal(authors.statusCode, 200, authors.body);
      // Bob works at Acme too, but the reader may not read him.
      assert.deepEqual(
        authors.json().data.map((author: { id: string }) => author.id),
        [ids.ann],
      );
      assert.equal(authors.json().meta.total, 1);
      assert.ok(authors.json().links.self.startsWith(`/v1/companies/${ids.acme}/authors?`), authors.json().links.self);
      const editorAll = await t.request({
        method: 'GET',
        url: `/v1/companies/${ids.acme}/authors?_sort=name`,
        auth: editor,
      });
      assert.deepEqual(
        editorAll.json().data.map((author: { id: string }) => author.id),
        [ids.ann, ids.bob],
      );
    });

    it('names the field with _via when several refer to the target', async () => {
      const ambiguous = await t.request({ method: 'GET', url: `/v1/authors/${ids.ann}/posts`, auth: reader });
      assert.equal(ambiguous.statusCode, 400, ambiguous.body);
      assert.equal(ambiguous.json().errors[0].source.parameter, '_via');
      const edited = await t.request({
        method: 'GET',
        url: `/v1/authors/${ids.ann}/posts?_via=editor_id&include=author`,
        auth: reader,
      });
      assert.equal(edited.statusCode, 200, edited.body);
      assert.deepEqual(
        edited.json().data.map((post: { id: string }) => post.id),
        [ids.p3],
      );
      // p3's author is Bob, whom the reader may not read.
      assert.deepEqual(edited.json().included, []);
      assert.ok(
        edited.json().links.self.startsWith(`/v1/authors/${ids.ann}/posts?_via=editor_id&`),
        edited.json().links.self,
      );
      const written = await t.request({
        method: 'GET',
        url: `/v1/authors/${ids.ann}/posts?_via=author&title=p2`,
        auth: reader,
      });
      assert.deepEqual(
        written.json().data.map((post: { id: string }) => post.id),
        [ids.p2],
      );

      // Keyset pages of such a list: their links keep `_via` in the path, and following them walks the list.
      const seen: string[] = [];
      let next: string | undefined =
        `/v1/authors/${ids.ann}/posts?_via=author_id&_sort=title&page[after]=&page[limit]=1`;
      for (let page = 0; next !== undefined && page < 5; page++) {
        const response = await t.request({ method: 'GET', url: next, auth: editor });
        assert.equal(response.statusCode, 200, response.body);
        const document = response.json();
        assert.ok(document.links.self.startsWith(`/v1/authors/${ids.ann}/posts?_via=author_id&`), document.links.self);
        seen.push(...document.data.map((post: { id: string }) => post.id));
        next = document.links.next;
      }
      assert.deepEqual(seen, [ids.p1, ids.p2]);
    });

    it('answers 404 for a target the caller may not read, as for a missing one', async () => {
      const hidden = await t.request({
        method: 'GET',
        url: `/v1/authors/${ids.bob}/posts?_via=author_id`,
        auth: reader,
      });
      assert.equal(hidden.statusCode, 404, hidden.body);
      const seen = await t.request({ method: 'GET', url: `/v1/authors/${ids.bob}/posts?_via=author_id`, auth: editor });
      assert.equal(seen.statusCode, 200, seen.body);
      const unrelated = await t.request({ method: 'GET', url: `/v1/companies/${ids.acme}/posts`, auth: editor });
      assert.equal(unrelated.statusCode, 404, unrelated.body);
      const written = await t.request({
        method: 'POST',
        url: `/v1/companies/${ids.acme}/authors`,
        auth: editor,
        payload: {},
      });
      assert.equal(written.statusCode, 405, written.body);
    });
  });
}
