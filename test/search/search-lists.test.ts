// Full-text search (docs/search.md): `_search` finds records by the words of their searchable fields,
// with phrases and prefixes, combined with every filter and the row filter, ordered by relevance with
// `_sort=-_rank`, in lists, exports and aggregates; the same answers on SQLite and PostgreSQL, NULLs,
// case and unicode included.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/test-databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { SEARCH_RESOURCES } from '../helpers/search-resources.ts';

const NOTES = [
  { title: 'Apple pie', body: 'Bake the apple pie for an hour', views: 5 },
  { title: 'Banana bread', body: 'Ripe bananas make the best bread', views: 9 },
  { title: 'Apple apple apple', body: null, views: 1 },
  { title: 'ÉCOLE', body: 'Les élèves de l’école — café', views: 2 },
  { title: 'Draft about pears', body: 'pear tart', status: 'draft', owner: 'someone-else', views: 3 },
  { title: 'My own pear draft', body: 'pear jam', status: 'draft', owner: 'reader-1', views: 4 },
  { title: null, body: null, secret: 'launch codes zebra', views: 6 },
  { title: 'Plain', body: 'apple and pie are here but not together: pie, then apple', views: 7 },
];

const answers = new Map<string, unknown[]>();

for (const dialect of testDialects()) {
  describe(`full-text search on ${dialect}`, () => {
    let t: TestApp;
    let editor: string;
    let reader: string;
    before(async () => {
      t = await startTestApp(dialect, { resources: SEARCH_RESOURCES });
      editor = await t.as('editor');
      reader = await t.as('user', 'reader-1');
      for (const note of NOTES) {
        const created = await t.request({ method: 'POST', url: '/v1/notes', auth: editor, payload: note });
        assert.equal(created.statusCode, 201, created.body);
      }
    });
    after(() => t.close());

    const get = async (url: string, auth = editor) => {
      const response = await t.request({ method: 'GET', url, auth });
      return { status: response.statusCode, body: response.json() };
    };
    /** Titles of the records a search answers, sorted unless `ordered`. */
    const titles = async (url: string, auth = editor, ordered = false): Promise<(string | null)[]> => {
      const { status, body } = await get(url, auth);
      assert.equal(status, 200, JSON.stringify(body));
      const found = (body.data as { attributes: { title: string | null } }[]).map((r) => r.attributes.title);
      const sorted = [...found].sort((a, b) => String(a).localeCompare(String(b)));
      // Relevance is each database's own measure (bm25, ts_rank): only the records found must agree.
      (answers.get(dialect) ?? answers.set(dialect, []).get(dialect)!).push([url, sorted]);
      return ordered ? found : sorted;
    };
    const q = (text: string) => encodeURIComponent(text);

    it('finds records by a word in any searchable field, case-insensitively', async () => {
      assert.deepEqual(await titles(`/v1/notes?_search=APPLE`), ['Apple apple apple', 'Apple pie', 'Plain']);
      assert.deepEqual(await titles(`/v1/notes?_search=bread`), ['Banana bread']);
      assert.deepEqual(await titles(`/v1/notes?_search=zebra`), [null]);
    });

    it('needs every word; a quoted phrase needs its words in order, in one field', async () => {
      assert.deepEqual(await titles(`/v1/notes?_search=${q('apple pie')}`), ['Apple pie', 'Plain']);
      assert.deepEqual(await titles(`/v1/notes?_search=${q('"apple pie"')}`), ['Apple pie']);
      assert.deepEqual(await titles(`/v1/notes?_search=${q('"pie apple"')}`), []);
      assert.deepEqual(await titles(`/v1/notes?_search=${q('apple banana')}`), []);
    });

    it('matches a prefix written word*', async () => {
      assert.deepEqual(await titles(`/v1/notes?_search=${q('banan*')}`), ['Banana bread']);
      assert.deepEqual(await titles(`/v1/notes?_search=${q('ban')}`), []);
    });

    it('folds the case of non-ASCII letters and keeps accents, on both databases', async () => {
      assert.deepEqual(await titles(`/v1/notes?_search=${q('école')}`), ['ÉCOLE']);
      assert.deepEqual(await titles(`/v1/notes?_search=${q('CAFÉ')}`), ['ÉCOLE']);
      assert.deepEqual(await titles(`/v1/notes?_search=${q('ecole')}`), []);
    });

    it('combines with the filters, _filter and the page', async () => {
      assert.deepEqual(await titles(`/v1/notes?_search=apple&views__gte=5`), ['Apple pie', 'Plain']);
      assert.deepEqual(await titles(`/v1/notes?_search=apple&_filter=${q('{"views":{"lt":5}}')}`), [
        'Apple apple apple',
      ]);
      const { body } = await get(`/v1/notes?_search=apple&_limit=2&_sort=views`);
      assert.deepEqual(
        body.data.map((r: { attributes: { title: string } }) => r.attributes.title),
        ['Apple apple apple', 'Apple pie'],
      );
      assert.equal(body.meta.total, 3, 'the count counts the matches');
      assert.match(body.links.next, /_search=apple/, 'links carry the search');
    });

    it('orders by relevance with _sort=-_rank, then by the other sort keys', async () => {
      const ranked = await titles(`/v1/notes?_search=apple&_sort=-_rank,views`, editor, true);
      assert.equal(ranked[0], 'Apple apple apple', 'the record with the word three times comes first');
      assert.deepEqual([...ranked].sort(), ['Apple apple apple', 'Apple pie', 'Plain']);
      const reversed = await titles(`/v1/notes?_search=apple&_sort=_rank,views`, editor, true);
      assert.equal(reversed.at(-1), 'Apple apple apple');
    });

    it('applies the row filter: a reader finds published notes and their own drafts only', async () => {
      assert.deepEqual(await titles(`/v1/notes?_search=pear`, reader), ['My own pear draft']);
      assert.deepEqual(await titles(`/v1/notes?_search=pear`), ['Draft about pears', 'My own pear draft']);
      assert.equal((await get(`/v1/notes?_search=pear`, reader)).body.meta.total, 1, 'the count keeps the row filter');
      assert.equal((await get(`/v1/notes?_search=pear`)).body.meta.total, 2);
    });

    it('keeps the index exact through updates and deletes', async () => {
      const created = await t.request({
        method: 'POST',
        url: '/v1/notes',
        auth: editor,
        payload: { title: 'Kiwi', body: 'green' },
      });
      const id = created.json().data.id as string;
      assert.deepEqual(await titles(`/v1/notes?_search=green`), ['Kiwi']);
      const updated = await t.request({
        method: 'PATCH',
        url: `/v1/notes/${id}`,
        auth: editor,
        payload: { body: 'brown' },
      });
      assert.equal(updated.statusCode, 200, updated.body);
      assert.deepEqual(await titles(`/v1/notes?_search=green`), []);
      assert.deepEqual(await titles(`/v1/notes?_search=brown`), ['Kiwi']);
      // A search alone is counted in the index itself (on SQLite): the count follows it exactly.
      assert.equal((await get(`/v1/notes?_search=green`)).body.meta.total, 0);
      assert.equal((await get(`/v1/notes?_search=brown`)).body.meta.total, 1);
      // An update of a field outside the index leaves it as it was.
      await t.request({ method: 'PATCH', url: `/v1/notes/${id}`, auth: editor, payload: { views: 50 } });
      assert.deepEqual(await titles(`/v1/notes?_search=brown&views=50`), ['Kiwi']);
      const removed = await t.request({ method: 'DELETE', url: `/v1/notes/${id}`, auth: editor });
      assert.equal(removed.statusCode, 204, removed.body);
      assert.deepEqual(await titles(`/v1/notes?_search=brown`), []);
      assert.equal((await get(`/v1/notes?_search=brown`)).body.meta.total, 0);
    });

    it('searches exports and aggregates', async () => {
      const exported = await t.request({ method: 'GET', url: '/v1/notes?_search=apple&_format=ndjson', auth: editor });
      assert.equal(exported.statusCode, 200, exported.body);
      const rows = exported.body
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).title as string)
        .sort();
      assert.deepEqual(rows, ['Apple apple apple', 'Apple pie', 'Plain']);
      const { status, body } = await get('/v1/notes/aggregate?_search=apple&_count&_sum=views');
      assert.equal(status, 200, JSON.stringify(body));
      assert.deepEqual(body.data[0].attributes, { count: 3, sum: { views: 13 } });
    });
  });
}

describe('full-text search agrees between SQLite and PostgreSQL', () => {
  it('answers every search above alike', () => {
    const [first, ...others] = [...answers.values()];
    for (const other of others) assert.deepEqual(other, first);
  });
});
