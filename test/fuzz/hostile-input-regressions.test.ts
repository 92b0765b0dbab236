// Regressions for what the hostile-input fuzzing found, one scenario each, on every dialect.
// (Deep nesting, the total of list values and the ILIKE hang are in input-limits.test.ts.)
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/test-databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { checkAnswer, FUZZ_OVERRIDES, FUZZ_RESOURCES, send } from './fuzz-harness.ts';
import type { ErrorCode } from '../../src/errors/error-catalogue.ts';

interface ErrorObject {
  status: string;
  code: string;
  detail: string;
  source?: { pointer?: string; parameter?: string };
}

for (const dialect of testDialects()) {
  describe(`hostile-input regressions on ${dialect}`, () => {
    let t: TestApp;
    let editor: string;
    let postId: string;
    before(async () => {
      t = await startTestApp(dialect, {
        ...FUZZ_OVERRIDES,
        resources: {
          ...FUZZ_RESOURCES,
          // Field names that are also members of Object.prototype are valid names (docs/configuration.md).
          oddities: {
            fields: { constructor: { type: 'string' as const, sortable: true }, valueof: { type: 'integer' as const } },
            permissions: { editor: { read: true, create: true, update: true } },
          },
        },
      });
      editor = await t.as('editor');
      const created = await t.request({ method: 'POST', url: '/v1/posts', auth: editor, payload: { title: 'Target' } });
      postId = (created.json() as { data: { id: string } }).data.id;
    });
    after(() => t.close());

    /** Sends, checks the answer is a JSON:API document with one of `codes`, and returns its error objects. */
    const refused = async (options: Parameters<typeof send>[1], codes: ErrorCode[]): Promise<ErrorObject[]> => {
      const response = await send(t, { auth: editor, ...options });
      checkAnswer(response, { errors: codes, hidden: [], label: `${options.method} ${String(options.url)}` });
      return (response.json() as { errors: ErrorObject[] }).errors;
    };
    const json = { 'content-type': 'application/json' };

    it('answers 400 for query parameters named after Object.prototype members (was 500 INTERNAL_ERROR)', async () => {
      for (const name of [
        'constructor',
        'toString__eq',
        'valueOf',
        'hasOwnProperty__like',
        '__proto__',
        'isPrototypeOf__in',
      ]) {
        const errors = await refused({ method: 'GET', url: `/v1/posts?${name}=1` }, ['INVALID_QUERY_PARAMS']);
        assert.equal(errors[0]!.source?.parameter, name);
      }
      // `fields=constructor` was silently ignored, `_sort=constructor` called it "not sortable".
      const fields = await refused({ method: 'GET', url: '/v1/posts?fields=constructor' }, ['INVALID_QUERY_PARAMS']);
      assert.match(fields[0]!.detail, /Unknown field 'constructor'/);
      const sort = await refused({ method: 'GET', url: '/v1/posts?_sort=toString' }, ['INVALID_QUERY_PARAMS']);
      assert.match(sort[0]!.detail, /unknown field 'toString'/);
    });

    it('serves a resource whose field is named `constructor` (writes were refused as not writable)', async () => {
      const created = await send(t, {
        method: 'POST',
        url: '/v1/oddities',
        auth: editor,
        payload: { constructor: 'built', valueof: 3 },
      });
      assert.equal(created.statusCode, 201, created.body);
      const { id, attributes } = (created.json() as { data: { id: string; attributes: Record<string, unknown> } }).data;
      assert.equal(attributes.constructor, 'built');
      const patched = await send(t, {
        method: 'PATCH',
        url: `/v1/oddities/${id}`,
        auth: editor,
        payload: { constructor: 'rebuilt' },
      });
      assert.equal(patched.statusCode, 200, patched.body);
      const replaced = await send(t, {
        method: 'PUT',
        url: `/v1/oddities/${id}`,
        auth: editor,
        payload: { valueof: 4 },
      });
      assert.equal(replaced.statusCode, 200, replaced.body);
      assert.equal(
        (replaced.json() as { data: { attributes: Record<string, unknown> } }).data.attributes.constructor,
        null,
        'PUT resets an absent field',
      );
      await send(t, { method: 'PATCH', url: `/v1/oddities/${id}`, auth: editor, payload: { constructor: 'again' } });
      const listed = await send(t, {
        method: 'GET',
        url: '/v1/oddities?constructor=again&_sort=-constructor&fields=constructor',
        auth: editor,
      });
      assert.equal(listed.statusCode, 200, listed.body);
      assert.deepEqual(
        (listed.json() as { data: { id: string; attributes: Record<string, unknown> }[] }).data.map((r) => [
          r.id,
          r.attributes.constructor,
        ]),
        [[id, 'again']],
      );
    });

    it('answers 400 for a NUL character in a filter value (was 500 on PostgreSQL)', async () => {
      for (const query of ['title=a%00b', 'title__like=%00%25', 'author_id__in=x,%00', 'title__ilike=%00']) {
        const errors = await refused({ method: 'GET', url: `/v1/posts?${query}` }, ['INVALID_QUERY_PARAMS']);
        assert.match(errors[0]!.detail, /NUL/);
      }
      // Refused in any parameter, even one whose value is ignored: the whole query string is checked at once.
      const ignored = await refused({ method: 'GET', url: '/v1/posts?title__is_null=%00' }, ['INVALID_QUERY_PARAMS']);
      assert.equal(ignored[0]!.source?.parameter, 'title__is_null');
    });

    it('answers 400 INVALID_RESOURCE_DATA with a pointer for strings no database stores as sent (was 500 on PostgreSQL, U+FFFD on SQLite)', async () => {
      const bodies: [string, string][] = [
        ['{"title":"a\\u0000b"}', '/data/attributes/title'],
        ['{"body":"\\u0000"}', '/data/attributes/body'],
        // The pointer names the very string, inside json values too, and the member for a name.
        ['{"tags":{"k":["x","\\u0000"]}}', '/data/attributes/tags/k/1'],
        ['{"tags":{"\\u0000":1}}', '/data/attributes/tags/\u0000'],
        ['{"title":"\\ud800"}', '/data/attributes/title'],
        ['{"tags":["\\udfff"]}', '/data/attributes/tags/0'],
      ];
      for (const [payload, pointer] of bodies) {
        const errors = await refused({ method: 'PATCH', url: `/v1/posts/${postId}`, payload, headers: json }, [
          'INVALID_RESOURCE_DATA',
        ]);
        assert.equal(errors[0]!.source?.pointer, pointer, payload);
      }
      // A surrogate pair is one well-formed character and is stored as sent.
      const emoji = await send(t, {
        method: 'PATCH',
        url: `/v1/posts/${postId}`,
        auth: editor,
        payload: '{"title":"\\ud83d\\ude00"}',
        headers: json,
      });
      assert.equal((emoji.json() as { data: { attributes: { title: string } } }).data.attributes.title, '😀');
    });

    it('answers 400 for dates outside years 0001-9999 (year 0000 was a 500 on PostgreSQL)', async () => {
      const bodies = [
        '{"published_at":"0000-01-01T00:00:00Z"}',
        '{"published_at":"0001-01-01T00:00:00+01:00"}',
        '{"published_at":"9999-12-31T23:59:59-01:00"}',
        '{"publish_on":"0000-01-01"}',
      ];
      for (const payload of bodies)
        await refused({ method: 'PATCH', url: `/v1/posts/${postId}`, payload, headers: json }, [
          'INVALID_RESOURCE_DATA',
        ]);
      for (const query of [
        'published_at=0000-01-01T00:00:00Z',
        'created_at__gt=0000-06-01T00:00:00Z',
        'publish_on__in=2026-01-01,0000-01-01',
      ]) {
        await refused({ method: 'GET', url: `/v1/posts?${query}` }, ['INVALID_QUERY_PARAMS']);
      }
      const edges = await send(t, {
        method: 'PATCH',
        url: `/v1/posts/${postId}`,
        auth: editor,
        payload: '{"published_at":"0001-01-01T00:00:00Z","publish_on":"9999-12-31"}',
        headers: json,
      });
      assert.equal(edges.statusCode, 200, edges.body);
    });

    it("answers 404 ROUTE_NOT_FOUND as JSON:API for an undecodable or over-long path segment (was Fastify's own JSON)", async () => {
      for (const url of [
        '/v1/%E0%A4%A',
        '/v1/posts/%C0%AE',
        `/v1/posts/${'a'.repeat(300)}`,
        `/v1/${'p'.repeat(300)}/schema`,
      ]) {
        const response = await send(t, { method: 'GET', url, auth: editor, headers: { 'x-request-id': 'bad-url-1' } });
        checkAnswer(response, { errors: ['ROUTE_NOT_FOUND'], hidden: [], label: url });
        assert.equal(response.headers['x-request-id'], 'bad-url-1');
      }
    });

    it('reports a problem the input repeats once, keeping the errors array unique as JSON:API requires', async () => {
      const errors = await refused({ method: 'GET', url: `/v1/posts?fields=${','.repeat(50)}` }, [
        'INVALID_QUERY_PARAMS',
      ]);
      assert.equal(errors.length, 1);
      assert.equal(new Set(errors.map((e) => JSON.stringify(e))).size, errors.length);
    });
  });
}
