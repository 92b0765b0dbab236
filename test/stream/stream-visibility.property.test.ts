// Property: whatever an editor writes, every open stream receives exactly the events that a GET by its
// reader, before and after each write, implies: `created` when the row came into view, `deleted` when it
// left, `updated` when a value it may see changed, and nothing else; no field, row or change beyond it.
// Readers: two `user`s (row filter, field list), a scoped editor key, a `?fields=` reader, the editor, the admin token.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { REPORT_POSTS } from '../helpers/report-posts.ts';
import { SseClient, type SseBlock } from '../helpers/sse-client.ts';
import { adminAuthorization, startStreamTestApp, type StreamTestApp } from '../helpers/stream-test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';

const SYSTEM = new Set(['id', 'created_at', 'updated_at']);
const AUTHORS = ['prop-u1', 'prop-u2', 'someone-else'];

type Row = Record<string, unknown>;
interface Payload {
  old: Row | null;
  new: Row | null;
  changes: { added: string[]; updated: string[]; removed: string[] };
}
interface Reader {
  name: string;
  authorization: string;
  /** `?fields=` of the stream; the GET is reduced to the same fields. */
  fields?: string[];
  client?: SseClient;
}

type Write =
  | { kind: 'create'; values: Row }
  | { kind: 'patch'; target: number; values: Row }
  | { kind: 'delete'; target: number };

const values = fc.record(
  {
    title: fc.constantFrom('a', 'b', 'c'),
    body: fc.option(fc.constantFrom('secret draft', 'public'), { nil: null }),
    status: fc.constantFrom('draft', 'published'),
    author_id: fc.constantFrom(...AUTHORS),
    rating: fc.option(fc.integer({ min: 0, max: 3 }), { nil: null }),
    featured: fc.option(fc.boolean(), { nil: null }),
  },
  { requiredKeys: [] },
);
const write: fc.Arbitrary<Write> = fc.oneof(
  values.map((v) => ({ kind: 'create' as const, values: { title: 'new', ...v } })),
  fc.record({ kind: fc.constant('patch' as const), target: fc.nat(), values }),
  fc.record({ kind: fc.constant('delete' as const), target: fc.nat() }),
);

const present = (value: unknown) => value !== null && value !== undefined;

/** The event a reader's copy needs to go from `before` to `after` (GET results; null: not readable). */
function expectedEvent(before: Row | null, after: Row | null): { type: string; payload: Payload } | null {
  const names = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})].filter((n) => !SYSTEM.has(n)));
  const changes: Payload['changes'] = { added: [], updated: [], removed: [] };
  for (const name of names) {
    const old = before?.[name];
    const next = after?.[name];
    if (!present(old) && present(next)) changes.added.push(name);
    else if (present(old) && !present(next)) changes.removed.push(name);
    else if (present(old) && present(next) && !isDeepStrictEqual(old, next)) changes.updated.push(name);
  }
  if (before === null && after === null) return null;
  const kind = before === null ? 'created' : after === null ? 'deleted' : 'updated';
  if (kind === 'updated' && changes.added.length + changes.updated.length + changes.removed.length === 0) return null;
  return { type: `posts.${kind}`, payload: { old: before, new: after, changes } };
}

const sorted = (payload: Payload): Payload => ({
  old: payload.old,
  new: payload.new,
  changes: {
    added: [...payload.changes.added].sort(),
    updated: [...payload.changes.updated].sort(),
    removed: [...payload.changes.removed].sort(),
  },
});

for (const dialect of testDialects()) {
  describe(`stream events equal what GET shows each reader, before and after random writes (${dialect})`, () => {
    let t: StreamTestApp;
    const readers: Reader[] = [];
    let markers = 0;

    before(async () => {
      t = await startStreamTestApp({ dialect, resources: { posts: REPORT_POSTS } });
      readers.push(
        { name: 'user u1', authorization: (await t.key('user', 'prop-u1')).authorization },
        { name: 'user u2', authorization: (await t.key('user', 'prop-u2')).authorization },
        {
          name: 'user u2, ?fields=title,status',
          authorization: (await t.key('user', 'prop-u2b')).authorization,
          fields: ['title', 'status'],
        },
        {
          name: 'editor key scoped to title',
          authorization: (await t.key('editor', 'prop-scoped', { posts: { read: ['title'] } })).authorization,
        },
        { name: 'editor', authorization: t.editor.authorization },
        { name: 'admin token', authorization: adminAuthorization(t.config) },
      );
      for (const reader of readers) {
        const query = reader.fields ? `?fields=${reader.fields.join(',')}` : '';
        reader.client = await SseClient.connect(`${t.baseUrl}/v1/posts/stream${query}`, {
          headers: { authorization: reader.authorization },
        });
        assert.equal(reader.client.status, 200);
        await reader.client.waitFor((b) => b.comments.includes('connected'), { what: 'the connected comment' });
      }
    });
    after(async () => {
      for (const reader of readers) reader.client?.close();
      await t.close();
    });

    /** The record as `reader` reads it with GET (id and attributes), or null when it may not. */
    const read = async (reader: Reader, id: string): Promise<Row | null> => {
      const response = await t.app.inject({
        method: 'GET',
        url: `/v1/posts/${id}`,
        headers: { authorization: reader.authorization },
      });
      if (response.statusCode === 404) return null;
      assert.equal(response.statusCode, 200, response.body);
      const { data } = response.json() as { data: { id: string; attributes: Row } };
      const row: Row = { id: data.id };
      for (const [name, value] of Object.entries(data.attributes))
        if (SYSTEM.has(name) || !reader.fields || reader.fields.includes(name)) row[name] = value;
      return row;
    };
    const readAll = (id: string) => Promise.all(readers.map((reader) => read(reader, id)));

    it('holds for 30 runs of up to 4 writes', { timeout: 120_000 }, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(write, { minLength: 1, maxLength: 4 }), async (writes) => {
          const starts = readers.map((reader) => reader.client!.events.length);
          const expected: { type: string; payload: Payload }[][] = readers.map(() => []);
          const ids: string[] = [];
          for (const step of writes) {
            let id: string;
            let beforeRows: (Row | null)[];
            if (step.kind === 'create' || ids.length === 0) {
              beforeRows = readers.map(() => null);
              id = await t.createPost(step.kind === 'create' ? step.values : { title: 'new' });
              ids.push(id);
            } else {
              id = ids[step.target % ids.length]!;
              beforeRows = await readAll(id);
              if (step.kind === 'patch') {
                const response = await t.app.inject({
                  method: 'PATCH',
                  url: `/v1/posts/${id}`,
                  headers: { authorization: t.editor.authorization },
                  payload: step.values,
                });
                // A row already deleted in this run is gone: 404 and no event.
                assert.ok(response.statusCode === 200 || response.statusCode === 404, response.body);
              } else {
                const response = await t.app.inject({
                  method: 'DELETE',
                  url: `/v1/posts/${id}`,
                  headers: { authorization: t.editor.authorization },
                });
                assert.ok(response.statusCode === 204 || response.statusCode === 404, response.body);
              }
            }
            const afterRows = await readAll(id);
            readers.forEach((_, i) => {
              const event = expectedEvent(beforeRows[i]!, afterRows[i]!);
              if (event) expected[i]!.push(event);
            });
          }
          // A published post every reader sees: once it arrives, every event of the writes has too.
          const marker = `marker-${markers++}`;
          await t.createPost({ title: marker, status: 'published' });
          const isMarker = (b: SseBlock) =>
            b.data !== undefined && (JSON.parse(b.data) as Payload).new?.title === marker;
          for (const [i, reader] of readers.entries()) {
            const client = reader.client!;
            await client.waitFor(isMarker, { from: starts[i], timeoutMs: 10_000, what: `${marker} on ${reader.name}` });
            const received = client.events.slice(starts[i]);
            const got = received
              .slice(0, received.findIndex(isMarker))
              .map((b) => ({ type: b.event, payload: sorted(JSON.parse(b.data!) as Payload) }));
            assert.deepStrictEqual(
              got,
              expected[i]!.map((e) => ({ type: e.type, payload: sorted(e.payload) })),
              `stream of ${reader.name}`,
            );
          }
        }),
        { numRuns: 30 },
      );
    });
  });
}
