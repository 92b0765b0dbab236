// Random query strings against every list endpoint: a 200 that shows only what the caller may read, or a
// 400 JSON:API error naming the problem; never a 500, a hang, or a row or field outside the caller's grant.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { testDialects } from '../helpers/test-databases.ts';
import {
  encodeComponent,
  hostileString,
  LIST_OPERATORS,
  queryString,
  SPECIAL_STRINGS,
  SQL_INJECTIONS,
  UNSTORABLE_CHARACTERS,
  unstorableString,
} from './hostile-arbitraries.ts';
import {
  fuzz,
  Prober,
  report,
  snapshotDatabase,
  startFuzzApp,
  type DatabaseSnapshot,
  type FuzzApp,
} from './fuzz-harness.ts';
import type { ErrorCode } from '../../src/errors/error-catalogue.ts';

const RUNS = 800;

/** The `user` role's readable post fields (test-config.ts BLOG_RESOURCES), plus what every record shows. */
const USER_POST_FIELDS = new Set([
  'title',
  'body',
  'status',
  'views',
  'author_id',
  'category_id',
  'created_at',
  'updated_at',
]);

interface ListDocument {
  data: { type: string; id: string; attributes: Record<string, unknown>; links: { self: string } }[];
  meta: { total: number };
  links: Record<string, string>;
}

const QUERY_ERRORS: readonly ErrorCode[] = ['INVALID_QUERY_PARAMS', 'INVALID_FIELDS'];

for (const dialect of testDialects()) {
  describe(`hostile list queries on ${dialect}`, () => {
    let app: FuzzApp;
    let probe: Prober;
    let snapshot: DatabaseSnapshot;
    before(async () => {
      app = await startFuzzApp(dialect);
      probe = new Prober(app);
      snapshot = await snapshotDatabase(app);
    });
    after(() => app.t.close());

    it("answers any query string with a list inside the caller's grant or a 400, never a 500", async (t) => {
      const targets = fc.constantFrom('posts', 'posts', 'posts', 'categories', 'comments', 'canary');
      const cases = await fuzz(
        RUNS,
        [fc.constantFrom('user', 'editor') as fc.Arbitrary<'user' | 'editor'>, targets, queryString],
        async (role, resource, query) => {
          const forbidden = resource === 'canary' || (resource === 'comments' && role === 'user');
          const { response, document } = await probe.expect(
            { method: 'GET', url: `/v1/${resource}?${query}`, auth: app[role] },
            forbidden
              ? { errors: ['FORBIDDEN'], hidden: app.hiddenFrom[role] }
              : { ok: [200], errors: QUERY_ERRORS, hidden: app.hiddenFrom[role] },
          );
          if (response.statusCode !== 200) return;
          const list = document as ListDocument;
          assert.ok(Number.isSafeInteger(list.meta.total) && list.meta.total >= list.data.length, response.body);
          assert.ok(list.data.length <= 1000);
          assert.ok(typeof list.links.self === 'string' && typeof list.links.first === 'string');
          for (const record of list.data) {
            assert.equal(record.type, resource);
            if (resource === 'posts' && role === 'user') {
              // The row filter: published, or the caller's own.
              const visible = await app.t.ctx.store.db
                .selectFrom('posts')
                .select(['status', 'author_id'])
                .where('id', '=', record.id)
                .executeTakeFirstOrThrow();
              assert.ok(
                visible.status === 'published' || visible.author_id === app.userId,
                `row outside the read filter: ${record.id}`,
              );
              for (const name of Object.keys(record.attributes))
                assert.ok(USER_POST_FIELDS.has(name), `unreadable field ${name} shown`);
            }
          }
        },
      );
      report(t, `list queries on ${dialect}`, cases, probe);
    });

    it('runs every known-nasty value through every operator of every field (exhaustive table)', async (t) => {
      const posts = app.t.ctx.registry.find('posts')!;
      const fields = [...posts.fieldNames, 'id', 'created_at', 'updated_at'];
      const values = [
        ...SPECIAL_STRINGS,
        ...SQL_INJECTIONS,
        ...UNSTORABLE_CHARACTERS,
        'x'.repeat(5000),
        '%'.repeat(2000),
        '_%'.repeat(1000),
      ];
      let cases = 0;
      for (const field of fields) {
        // Every list operator the field's type takes, all in one request: a value valid for the type reaches the SQL.
        const type = posts.fields.get(field)?.type;
        const operators = LIST_OPERATORS.filter((op) => type === undefined || type.operators.has(op));
        for (const value of values) {
          cases += operators.length;
          const query = operators.map((op) => `${field}__${op}=${encodeComponent(value)}`).join('&');
          await probe.expect(
            { method: 'GET', url: `/v1/posts?${query}`, auth: app.editor },
            { ok: [200], errors: QUERY_ERRORS, hidden: app.hiddenFrom.editor },
          );
        }
      }
      report(t, `field × operator × value on ${dialect}`, cases, probe);
    });

    it('answers NUL in any parameter name or value with 400 INVALID_QUERY_PARAMS naming it, on /v1 lists and streams', async (t) => {
      const parameter = fc.tuple(
        fc.oneof(
          fc.constantFrom(
            'title',
            'title__like',
            'author_id__in',
            'views__gt',
            'title__is_null',
            '_sort',
            'fields',
            '_limit',
            'page[offset]',
            'events',
            'lastEventId',
          ),
          hostileString,
        ),
        unstorableString,
        fc.boolean(),
      );
      const cases = await fuzz(
        RUNS / 4,
        [parameter, fc.constantFrom('/v1/posts', '/v1/posts/stream')],
        async ([name, bad, inName], path) => {
          // A stream whose query passes stays open: only queries bound to be refused go there.
          if (path.endsWith('/stream') && !bad.includes('\u0000')) return;
          const [sentName, sentValue] = inName ? [`${name}${bad}`, 'x'] : [name, bad];
          const url = `${path}?${encodeComponent(sentName)}=${encodeComponent(sentValue)}`;
          const { response, document } = await probe.expect(
            { method: 'GET', url, auth: app.editor },
            { ok: [200], errors: QUERY_ERRORS, hidden: app.hiddenFrom.editor },
          );
          if (!bad.includes('\u0000')) return;
          assert.equal(response.statusCode, 400, `${url}: ${response.body}`);
          const errors = (document as { errors: { code: string; source?: { parameter?: string } }[] }).errors;
          // The parameter is named as parsed: a name holding a lone surrogate arrives still percent-encoded.
          const expected = /\p{Surrogate}/u.test(sentName) ? undefined : sentName;
          assert.ok(
            errors.some(
              (e) =>
                e.code === 'INVALID_QUERY_PARAMS' &&
                e.source?.parameter !== undefined &&
                (expected === undefined || e.source.parameter === expected),
            ),
            `${url}: ${response.body}`,
          );
        },
      );
      report(t, `NUL in queries on ${dialect}`, cases, probe);
    });

    it('answers any query string on the admin lists with a list or a 400 (NUL in a filter was a 500 on PostgreSQL)', async (t) => {
      const adminParameter = fc.tuple(
        fc.oneof(
          fc.constantFrom('email', 'userId', 'status', 'eventId', '_limit', '_offset', 'page[limit]'),
          hostileString,
        ),
        fc.oneof(hostileString, unstorableString, fc.constantFrom('1', '10', 'pending', 'success')),
      );
      const hooks = await app.t.request({
        method: 'POST',
        url: '/admin/webhooks',
        auth: app.t.admin,
        payload: { name: 'q', url: 'https://hooks.example.com/in', eventPattern: 'posts.*' },
      });
      const hookId = (hooks.json() as { data: { id: string } }).data.id;
      const paths = fc.constantFrom(
        '/admin/users',
        '/admin/keys',
        '/admin/webhooks',
        `/admin/webhooks/${hookId}/deliveries`,
      );
      const cases = await fuzz(RUNS / 2, [paths, fc.array(adminParameter, { maxLength: 3 })], async (path, params) => {
        const query = params.map(([name, value]) => `${encodeComponent(name)}=${encodeComponent(value)}`).join('&');
        const { response } = await probe.expect(
          { method: 'GET', url: `${path}?${query}`, auth: app.t.admin },
          { ok: [200], errors: ['INVALID_QUERY_PARAMS'], hidden: [] },
        );
        if (params.some(([name, value]) => `${name}${value}`.includes('\u0000')))
          assert.equal(response.statusCode, 400, `${path}?${query}`);
      });
      report(t, `admin list queries on ${dialect}`, cases, probe);
    });

    it('leaves every table, row count and planted row as it was', async () => {
      assert.deepEqual(await snapshotDatabase(app), snapshot);
    });
  });
}
