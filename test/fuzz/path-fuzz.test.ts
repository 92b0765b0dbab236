// Random path segments (unicode, `..`, `%00`, broken percent-encoding, very long) in the resource-name
// and id positions of every /v1 route and method: a JSON:API answer that serves only a real resource,
// never a 500, a hang, or Fastify's own error format.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { testDialects } from '../helpers/test-databases.ts';
import type { ErrorCode } from '../../src/errors/error-catalogue.ts';
import {
  encodeComponent,
  hostileString,
  longString,
  SPECIAL_STRINGS,
  SQL_INJECTIONS,
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

const RUNS = 900;

const PATH_ERRORS: readonly ErrorCode[] = [
  'NO_RESOURCE_NAME',
  'RESOURCE_NOT_FOUND',
  'ROUTE_NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'FORBIDDEN',
  // A body meant for posts sent to another resource, or a delete that a relation restricts.
  'INVALID_RESOURCE_DATA',
  'INVALID_FIELDS',
  'CONFLICT',
];

const SERVED = new Set(['posts', 'categories', 'comments']);

/** Segments inserted as they are: what a hand-written or malicious URL may carry. */
const RAW_SEGMENTS = [
  '',
  '.',
  '..',
  '%00',
  'a%00',
  '%00%00',
  '%ED%B0%80',
  '%2e%2e',
  '%2E',
  '%2F',
  '%2f..%2f',
  '%',
  '%zz',
  '%E0%A4%A',
  '%C0%AE',
  '%ED%A0%80',
  '%FF',
  ';',
  'posts;x',
  'posts%00',
  'po%73ts',
  'posts%20',
  '%20posts',
  'posts.json',
  'posts~',
  'stream%00',
];

function decoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

for (const dialect of testDialects()) {
  describe(`hostile paths on ${dialect}`, () => {
    let app: FuzzApp;
    let probe: Prober;
    let snapshot: DatabaseSnapshot;
    const created: Record<string, number> = { posts: 0, categories: 0, comments: 0 };
    before(async () => {
      app = await startFuzzApp(dialect);
      probe = new Prober(app);
      snapshot = await snapshotDatabase(app);
    });
    after(() => app.t.close());

    it('answers any resource name and id, on every method, with a JSON:API document', async (t) => {
      const resourceSegment = fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom('posts', 'categories', 'comments', 'canary') },
        { weight: 3, arbitrary: hostileString.map(encodeComponent) },
        { weight: 2, arbitrary: fc.constantFrom(...RAW_SEGMENTS) },
        { weight: 1, arbitrary: longString(150, 400).map(encodeComponent) },
      );
      // Ids: planted rows are read, never written; anything else is fair game.
      const idSegment = fc.oneof(
        { weight: 2, arbitrary: fc.uuid().map(String) },
        { weight: 1, arbitrary: fc.constantFrom('planted') },
        {
          weight: 3,
          arbitrary: fc
            .constantFrom(...SPECIAL_STRINGS, ...SQL_INJECTIONS)
            .filter((s) => s !== 'stream' && s !== 'schema')
            .map(encodeComponent),
        },
        { weight: 2, arbitrary: hostileString.filter((s) => s !== 'stream').map(encodeComponent) },
        { weight: 1, arbitrary: unstorableString.map(encodeComponent) },
        { weight: 2, arbitrary: fc.constantFrom(...RAW_SEGMENTS) },
        { weight: 1, arbitrary: longString(150, 400).map(encodeComponent) },
      );
      const shape = fc.constantFrom('collection', 'record', 'schema', 'deeper', 'root');
      const method = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE') as fc.Arbitrary<
        'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
      >;
      const role = fc.constantFrom('editor', 'user') as fc.Arbitrary<'editor' | 'user'>;
      const cases = await fuzz(
        RUNS,
        [method, shape, resourceSegment, idSegment, role],
        async (verb, form, resource, rawId, who) => {
          const id =
            rawId === 'planted' ? (verb === 'GET' ? app.ids.publishedPost : encodeComponent('planted')) : rawId;
          const url =
            form === 'collection'
              ? `/v1/${resource}`
              : form === 'record'
                ? `/v1/${resource}/${id}`
                : form === 'schema'
                  ? `/v1/${resource}/schema`
                  : form === 'deeper'
                    ? `/v1/${resource}/${id}/${id}`
                    : '/v1/';
          const payload = verb === 'GET' || verb === 'DELETE' ? {} : { payload: { title: 'From a path test' } };
          const { response, document } = await probe.expect(
            { method: verb, url, auth: app[who], ...payload },
            { ok: [200, 201, 204], errors: PATH_ERRORS, hidden: app.hiddenFrom[who] },
          );
          if (response.statusCode >= 300) return;
          // Served only under a real resource's exact name; never the canary.
          const name = decoded(resource);
          assert.ok(name !== undefined && SERVED.has(name), `served ${url} as a resource`);
          if (response.statusCode === 201) created[name] = (created[name] ?? 0) + 1;
          const data = (document as { data?: { type?: string } | { type?: string }[] } | undefined)?.data;
          for (const item of Array.isArray(data) ? data : data ? [data] : []) assert.equal(item.type, name);
        },
      );
      report(t, `paths on ${dialect}`, cases, probe);
    });

    it('answers any id on every /admin route with a JSON:API document, never a 500 (NUL in an id was one on PostgreSQL)', async (t) => {
      const id = fc.oneof(
        { weight: 2, arbitrary: fc.uuid().map(String) },
        { weight: 3, arbitrary: fc.constantFrom(...RAW_SEGMENTS) },
        { weight: 2, arbitrary: unstorableString.map(encodeComponent) },
        { weight: 2, arbitrary: hostileString.map(encodeComponent) },
      );
      const route = fc.constantFrom(
        ['GET', '/admin/users/:id'],
        ['PATCH', '/admin/users/:id'],
        ['DELETE', '/admin/users/:id'],
        ['GET', '/admin/keys/:id'],
        ['PATCH', '/admin/keys/:id'],
        ['DELETE', '/admin/keys/:id'],
        ['GET', '/admin/webhooks/:id'],
        ['PATCH', '/admin/webhooks/:id'],
        ['DELETE', '/admin/webhooks/:id'],
        ['GET', '/admin/webhooks/:id/deliveries'],
        ['GET', '/admin/webhooks/:id/deliveries/:id'],
        ['POST', '/admin/webhooks/:id/deliveries/:id/retry'],
        ['POST', '/admin/webhooks/:id/test'],
      ) as fc.Arbitrary<['GET' | 'PATCH' | 'DELETE' | 'POST', string]>;
      // Real users, keys and webhooks are out of reach: random ids only, so nothing planted is changed.
      const cases = await fuzz(RUNS / 3, [route, id], async ([verb, pattern], segment) => {
        const url = pattern.replaceAll(':id', segment);
        const payload = verb === 'PATCH' ? { payload: { enabled: true } } : {};
        const { response } = await probe.expect(
          { method: verb, url, auth: app.t.admin, ...payload },
          {
            ok: [200],
            errors: ['RESOURCE_NOT_FOUND', 'ROUTE_NOT_FOUND', 'INVALID_RESOURCE_DATA', 'METHOD_NOT_ALLOWED'],
            hidden: [],
          },
        );
        if (segment.includes('%00')) assert.equal(response.statusCode, 404, `${verb} ${url}: ${response.body}`);
      });
      report(t, `admin paths on ${dialect}`, cases, probe);
    });

    it('leaves the planted rows and tables as they were; row counts grew only by the 201s', async () => {
      const after = await snapshotDatabase(app);
      assert.deepEqual(after.tables, snapshot.tables);
      assert.deepEqual(after.planted, snapshot.planted);
      assert.equal(after.counts.canary, snapshot.counts.canary);
      // Soft delete keeps post rows; other deletes only removed rows this suite created.
      assert.equal(after.counts.posts, snapshot.counts.posts! + created.posts!);
    });
  });
}
