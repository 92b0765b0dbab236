// SQL injection in every parameter position (filter names, values and operators, `_sort`, `fields`,
// paging, body keys and values, ids, resource names, the role header), as a role with no access to the
// canary table: no answer ever carries a planted secret, a list never shows a row the role could not
// list anyway, stored values come back verbatim, and afterwards every table and row is as it was.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { testDialects } from '../helpers/test-databases.ts';
import type { ErrorCode } from '../../src/errors/error-catalogue.ts';
import { encodeComponent, SQL_INJECTIONS } from './hostile-arbitraries.ts';
import {
  fuzz,
  Prober,
  report,
  snapshotDatabase,
  startFuzzApp,
  type Answer,
  type DatabaseSnapshot,
  type FuzzApp,
} from './fuzz-harness.ts';

/** More that only make sense for one database, and ones shaped for the positions that are not values. */
const PAYLOADS: readonly string[] = [
  ...SQL_INJECTIONS,
  "'; SELECT pg_sleep(10); --",
  '1); DROP TABLE posts CASCADE; --',
  "' AND (SELECT count(*) FROM canary) > 0 --",
  "' OR EXISTS(SELECT 1 FROM canary WHERE secret LIKE '%') --",
  "title; ATTACH DATABASE '/tmp/x.db' AS x; --",
  'title COLLATE "C"',
  'title DESC; DROP TABLE posts',
  'title,(CASE WHEN (SELECT 1 FROM canary)=1 THEN title ELSE views END)',
  'load_extension("x")',
  '1 LIMIT 1000 UNION SELECT secret FROM canary',
  '0x7fffffff',
  "1' OR '1'='1' /*",
];

type Position = {
  name: string;
  request: (
    p: string,
    app: FuzzApp,
  ) => {
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
    url: string;
    payload?: string;
    headers?: Record<string, string>;
  };
};

const q = encodeComponent;
/** A keyset cursor as svc encodes one (query/keyset-cursor.ts): base64url of a JSON array. */
const cursor = (values: unknown[]) => Buffer.from(JSON.stringify(values)).toString('base64url');
const json = { 'content-type': 'application/json' };

/** Every place a caller's text reaches the server. */
const POSITIONS: readonly Position[] = [
  { name: 'filter value (eq)', request: (p) => ({ method: 'GET', url: `/v1/posts?title=${q(p)}` }) },
  { name: 'filter value (neq)', request: (p) => ({ method: 'GET', url: `/v1/posts?title__neq=${q(p)}` }) },
  { name: 'filter value (like)', request: (p) => ({ method: 'GET', url: `/v1/posts?body__like=${q(p)}` }) },
  { name: 'filter value (ilike)', request: (p) => ({ method: 'GET', url: `/v1/posts?author_id__ilike=${q(p)}` }) },
  { name: 'filter value (in)', request: (p) => ({ method: 'GET', url: `/v1/posts?title__in=${q(p)},Public` }) },
  { name: 'filter value (nin)', request: (p) => ({ method: 'GET', url: `/v1/posts?title__nin=${q(p)}` }) },
  { name: 'filter value (gt)', request: (p) => ({ method: 'GET', url: `/v1/posts?title__gt=${q(p)}` }) },
  { name: 'filter value (integer)', request: (p) => ({ method: 'GET', url: `/v1/posts?views=${q(p)}` }) },
  { name: 'filter value (datetime)', request: (p) => ({ method: 'GET', url: `/v1/posts?created_at__lt=${q(p)}` }) },
  { name: 'filter value (id)', request: (p) => ({ method: 'GET', url: `/v1/posts?id=${q(p)}` }) },
  { name: 'filter value (enum)', request: (p) => ({ method: 'GET', url: `/v1/posts?status=${q(p)}` }) },
  { name: 'filter name', request: (p) => ({ method: 'GET', url: `/v1/posts?${q(p)}=x` }) },
  { name: 'filter name before an operator', request: (p) => ({ method: 'GET', url: `/v1/posts?${q(p)}__eq=x` }) },
  { name: 'filter operator', request: (p) => ({ method: 'GET', url: `/v1/posts?title__${q(p)}=x` }) },
  { name: '_sort', request: (p) => ({ method: 'GET', url: `/v1/posts?_sort=${q(p)}` }) },
  { name: '_sort descending', request: (p) => ({ method: 'GET', url: `/v1/posts?_sort=-${q(p)}` }) },
  { name: '_sort second key', request: (p) => ({ method: 'GET', url: `/v1/posts?_sort=title,${q(p)}` }) },
  { name: 'fields', request: (p) => ({ method: 'GET', url: `/v1/posts?fields=${q(p)}` }) },
  { name: 'fields second name', request: (p) => ({ method: 'GET', url: `/v1/posts?fields=title,${q(p)}` }) },
  { name: '_limit', request: (p) => ({ method: 'GET', url: `/v1/posts?_limit=${q(p)}` }) },
  { name: '_offset', request: (p) => ({ method: 'GET', url: `/v1/posts?_offset=${q(p)}` }) },
  { name: 'page[limit]', request: (p) => ({ method: 'GET', url: `/v1/posts?page[limit]=${q(p)}` }) },
  { name: 'page[after]', request: (p) => ({ method: 'GET', url: `/v1/posts?page[after]=${q(p)}` }) },
  // A cursor of the shape svc writes, carrying the payload as the sort value it compares with.
  {
    name: 'page[after] cursor value',
    request: (p) => ({
      method: 'GET',
      url: `/v1/posts?_sort=title&page[after]=${cursor(['title', p, '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b'])}`,
    }),
  },
  {
    name: 'page[before] cursor id',
    request: (p) => ({ method: 'GET', url: `/v1/posts?page[before]=${cursor(['', p])}` }),
  },
  { name: 'canary filter', request: (p) => ({ method: 'GET', url: `/v1/canary?secret__like=${q(p)}` }) },
  { name: 'resource name', request: (p) => ({ method: 'GET', url: `/v1/${q(p)}` }) },
  { name: 'id (read)', request: (p) => ({ method: 'GET', url: `/v1/posts/${q(p)}` }) },
  { name: 'id (canary read)', request: (p) => ({ method: 'GET', url: `/v1/canary/${q(p)}` }) },
  {
    name: 'id (patch)',
    request: (p) => ({ method: 'PATCH', url: `/v1/posts/${q(p)}`, payload: '{"title":"x"}', headers: json }),
  },
  {
    name: 'id (put)',
    request: (p) => ({ method: 'PUT', url: `/v1/posts/${q(p)}`, payload: '{"title":"x"}', headers: json }),
  },
  { name: 'id (delete)', request: (p) => ({ method: 'DELETE', url: `/v1/posts/${q(p)}` }) },
  {
    name: 'body key',
    request: (p) => ({
      method: 'POST',
      url: '/v1/posts',
      payload: JSON.stringify({ title: 't', [p]: 'x' }),
      headers: json,
    }),
  },
  {
    name: 'body value (create)',
    request: (p) => ({
      method: 'POST',
      url: '/v1/posts',
      payload: JSON.stringify({ title: p.slice(0, 200), body: p }),
      headers: json,
    }),
  },
  {
    name: 'body value (relation)',
    request: (p) => ({
      method: 'POST',
      url: '/v1/posts',
      payload: JSON.stringify({ title: 't', category_id: p }),
      headers: json,
    }),
  },
  {
    name: 'body value (patch own)',
    request: (p, app) => ({
      method: 'PATCH',
      url: `/v1/posts/${app.ids.userPost}`,
      payload: JSON.stringify({ body: p }),
      headers: json,
    }),
  },
  {
    name: 'X-Service-Role',
    request: (p) => ({
      method: 'GET',
      url: '/v1/posts',
      headers: { 'x-service-role': p.replace(/[^\x20-\x7e]/g, '?') },
    }),
  },
];

const ERRORS: readonly ErrorCode[] = [
  'INVALID_QUERY_PARAMS',
  'INVALID_FIELDS',
  'INVALID_RESOURCE_DATA',
  'RELATION_REFERENCE_ERROR',
  'RESOURCE_NOT_FOUND',
  'FORBIDDEN',
];

interface Listed {
  data: { id: string; attributes: Record<string, unknown> }[];
}

for (const dialect of testDialects()) {
  describe(`SQL injection on ${dialect}`, () => {
    let app: FuzzApp;
    let probe: Prober;
    let snapshot: DatabaseSnapshot;
    /** What the `user` role may list before any injection: no injected list may show more. */
    let visible: Set<string>;
    let createdPosts = 0;
    before(async () => {
      app = await startFuzzApp(dialect);
      probe = new Prober(app);
      snapshot = await snapshotDatabase(app);
      const listed = await app.t.request({ method: 'GET', url: '/v1/posts?_limit=1000', auth: app.user });
      visible = new Set((listed.json() as Listed).data.map((r) => r.id));
    });
    after(() => app.t.close());

    const check = (position: string, payload: string, response: Answer, document: unknown): void => {
      const label = `${position}: ${JSON.stringify(payload)}`;
      if (response.statusCode === 201) {
        createdPosts++;
        visible.add((document as { data: { id: string } }).data.id);
      }
      if (response.statusCode >= 300 || !Array.isArray((document as Listed | undefined)?.data)) {
        // A created or patched record shows the injection as plain text.
        const attributes = (document as { data?: { attributes?: Record<string, unknown> } } | undefined)?.data
          ?.attributes;
        if (attributes && position.startsWith('body value') && position !== 'body value (relation)')
          assert.equal(attributes.body, payload, label);
        return;
      }
      const rows = (document as Listed).data;
      for (const row of rows) assert.ok(visible.has(row.id), `${label} listed a row the role cannot list: ${row.id}`);
      // Values are compared as data: `title=<payload>` finds only rows whose title is the payload.
      if (position === 'filter value (eq)') for (const row of rows) assert.equal(row.attributes.title, payload, label);
      if (position === 'filter value (neq)')
        assert.ok(
          rows.every((row) => row.attributes.title !== payload),
          label,
        );
    };

    it('answers every payload in every position without a leak or a 500 (exhaustive table)', async (t) => {
      let cases = 0;
      for (const position of POSITIONS) {
        for (const payload of PAYLOADS) {
          cases++;
          const request = position.request(payload, app);
          const { response, document } = await probe.expect(
            { ...request, auth: app.user },
            {
              ok: [200, 201, 204],
              errors: ERRORS,
              hidden: app.hiddenFrom.user,
              label: `${position.name}: ${JSON.stringify(payload)}`,
            },
          );
          check(position.name, payload, response, document);
        }
      }
      report(
        t,
        `injection table on ${dialect} (${POSITIONS.length} positions × ${PAYLOADS.length} payloads)`,
        cases,
        probe,
      );
    });

    it('answers random mixes of payloads across positions without a leak or a 500', async (t) => {
      // Filters on text fields take any string, so these reach the SQL together.
      const textFilters = POSITIONS.filter((p) => /^filter value \((eq|neq|like|ilike|in|nin|gt)\)$/.test(p.name));
      const mixed = fc
        .uniqueArray(fc.tuple(fc.constantFrom(...textFilters), fc.constantFrom(...PAYLOADS)), {
          minLength: 2,
          maxLength: 5,
          selector: ([position]) => position.name,
        })
        .map((parts) =>
          parts.map(([position, payload]) => position.request(payload, app).url.split('?')[1]!).join('&'),
        );
      const cases = await fuzz(250, [mixed], async (query) => {
        const { response, document } = await probe.expect(
          { method: 'GET', url: `/v1/posts?${query}`, auth: app.user },
          { ok: [200], errors: ERRORS, hidden: app.hiddenFrom.user },
        );
        check('mixed', query, response, document);
      });
      report(t, `injection mixes on ${dialect}`, cases, probe);
    });

    it('leaves every table, the canary and the planted rows intact; posts grew only by the 201s', async () => {
      const after = await snapshotDatabase(app);
      assert.deepEqual(after.tables, snapshot.tables, 'a table appeared or disappeared');
      assert.deepEqual(after.planted, snapshot.planted, 'a planted row changed');
      assert.deepEqual(after.counts, { ...snapshot.counts, posts: snapshot.counts.posts! + createdPosts });
    });
  });
}
