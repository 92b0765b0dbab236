// `_search` as an attacker uses it (docs/search.md): a field the caller cannot read never decides a
// match nor an order (no oracle); query syntax of either database typed into the search box is only
// words; every bound answers 400 naming `_search` (or the parameter at fault), never a 500.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/test-databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { SEARCH_RESOURCES } from '../helpers/search-resources.ts';
import { MAX_SEARCH_LENGTH, MAX_SEARCH_WORDS } from '../../src/query/parse-search.ts';

const NOTES = [
  { title: 'Public kiwi', body: 'nothing else', secret: 'zebra launch codes', views: 1 },
  { title: 'Other kiwi', body: 'nothing else', secret: 'plain', views: 2 },
  { title: 'Third kiwi', body: 'nothing else', secret: 'kiwi kiwi kiwi kiwi kiwi', views: 3 },
  { title: 'apple', body: 'banana', secret: null, views: 4 },
  { title: 'apple apple', body: null, secret: null, views: 5 },
];

for (const dialect of testDialects()) {
  describe(`full-text search under attack on ${dialect}`, () => {
    let t: TestApp;
    let editor: string;
    let reader: string;
    let counter: string;
    before(async () => {
      t = await startTestApp(dialect, { resources: SEARCH_RESOURCES });
      editor = await t.as('editor');
      reader = await t.as('user', 'reader-1');
      counter = await t.as('counter', 'counter-1');
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
    const titles = async (search: string, auth = editor, extra = ''): Promise<string[]> => {
      const { status, body } = await get(`/v1/notes?_search=${encodeURIComponent(search)}${extra}`, auth);
      assert.equal(status, 200, JSON.stringify(body));
      return (body.data as { attributes: { title: string } }[]).map((r) => r.attributes.title);
    };
    const refused = async (url: string, parameter: string, auth = editor) => {
      const { status, body } = await get(url, auth);
      assert.equal(status, 400, JSON.stringify(body));
      assert.equal(body.errors[0].code, 'INVALID_QUERY_PARAMS');
      assert.equal(body.errors[0].source.parameter, parameter, JSON.stringify(body));
      return body.errors[0].detail as string;
    };

    it('does not find a record by words only in a field the caller cannot read', async () => {
      assert.deepEqual(await titles('zebra'), ['Public kiwi'], 'the editor reads secret');
      assert.deepEqual(await titles('zebra', reader), []);
      assert.deepEqual(await titles('zeb*', reader), []);
      assert.deepEqual(await titles('"launch codes"', reader), []);
      assert.deepEqual(await titles('kiwi zebra', reader), [], 'one readable word does not let the other match');
      assert.deepEqual((await titles('kiwi', reader)).length, 3);
    });

    it('does not let an unreadable field order the results', async () => {
      // Equal in every readable field: their relevance to the reader is equal, so views decide.
      assert.deepEqual(await titles('kiwi', reader, '&_sort=-_rank,-views'), [
        'Third kiwi',
        'Other kiwi',
        'Public kiwi',
      ]);
      assert.deepEqual(
        await titles('apple', reader, '&_sort=-_rank,views'),
        ['apple apple', 'apple'],
        'more matches in readable fields rank higher, an empty field counting none',
      );
      assert.deepEqual(await titles('kiwi', reader, '&_sort=-_rank,views'), [
        'Public kiwi',
        'Other kiwi',
        'Third kiwi',
      ]);
    });

    it('does not reveal the aggregates or counts of matches in unreadable fields', async () => {
      const { body } = await get('/v1/notes/aggregate?_search=zebra&_count', reader);
      assert.deepEqual(body.data[0].attributes, { count: 0 });
      const list = await get('/v1/notes?_search=zebra', reader);
      assert.equal(list.body.meta.total, 0);
    });

    it('reads query syntax of FTS5 and tsquery as plain words', async () => {
      for (const text of [
        'apple OR banana',
        'apple | zebra',
        '{secret} : zebra',
        'secret:zebra',
        'NEAR(apple banana)',
        'apple) OR (zebra',
        "apple' || 'zebra",
        '-zebra',
        '!zebra',
        '^apple & !banana:*',
      ]) {
        const { status, body } = await get(`/v1/notes?_search=${encodeURIComponent(text)}`, reader);
        assert.equal(status, 200, `${text}: ${JSON.stringify(body)}`);
        assert.ok(
          !body.data.some((r: { attributes: { title: string } }) => r.attributes.title === 'Public kiwi'),
          `${text} must not find the zebra`,
        );
      }
      assert.deepEqual(await titles('apple OR banana'), [], 'OR is a word that must be there too');
      assert.deepEqual(await titles('apple & banana'), ['apple'], 'punctuation separates words');
      assert.deepEqual(await titles('"banana'), ['apple'], 'an unclosed quote closes at the end');
    });

    it('bounds the text, its words and prefixes', async () => {
      await refused(`/v1/notes?_search=${'a'.repeat(MAX_SEARCH_LENGTH + 1)}`, '_search');
      await refused(`/v1/notes?_search=${encodeURIComponent('w '.repeat(MAX_SEARCH_WORDS + 1))}`, '_search');
      assert.match(await refused(`/v1/notes?_search=${encodeURIComponent('a*')}`, '_search'), /prefix/);
      assert.match(
        await refused(`/v1/notes?_search=${encodeURIComponent('*** "" !')}`, '_search'),
        /at least one word/,
      );
      await refused('/v1/notes?_search=', '_search');
      await refused('/v1/notes?_search=a&_search=b', '_search');
    });

    it('refuses a search where it cannot apply, naming the parameter', async () => {
      assert.match(await refused('/v1/tags?_search=apple', '_search'), /no searchable field/);
      assert.match(await refused('/v1/notes?_search=apple', '_search', counter), /readable/);
      await refused('/v1/notes?_sort=-_rank', '_sort');
      await refused('/v1/notes?_search=apple&_sort=views,-_rank', '_sort');
      await refused('/v1/notes?_search=apple&_sort=-_rank&page[after]=', 'page[after]');
      await refused('/v1/notes?_search=apple&_sort=-_rank&_format=csv', '_sort');
      await refused('/v1/notes/aggregate?_search=apple&_sort=-_rank', '_sort');
      await refused('/v1/notes/stream?_search=apple', '_search');
    });
  });
}
