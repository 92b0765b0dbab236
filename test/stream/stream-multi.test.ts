// GET /v1/stream?resources=a,b: several resources on one connection. Each resource is read with the
// caller's own rights (fields, row filter) and its own `fields[name]` and `_filter[name]`; events come in
// commit order across resources; one Last-Event-ID resumes all of them; the per-key cap counts the
// connection once; a revocation or a reload narrowing any of its resources ends it. A resource the caller
// may not read is refused exactly as its own stream would refuse it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ResourceDefinition } from '../../src/config/config-types.ts';
import { SseClient, type SseBlock } from '../helpers/sse-client.ts';
import {
  adminAuthorization,
  POSTS_RESOURCE,
  startStreamTestApp,
  type StreamTestApp,
} from '../helpers/stream-test-app.ts';
import type { TestKey } from '../helpers/stream-test-keys.ts';
import { testDialects } from '../helpers/test-databases.ts';

const COMMENTS_RESOURCE: ResourceDefinition = {
  enableSoftDelete: false,
  fields: {
    body: { type: 'text' },
    author_id: { type: 'string' },
    internal: { type: 'string' },
  },
  permissions: {
    editor: { read: true, create: true, update: true, delete: true },
    user: { read: { fields: ['body', 'author_id'], filter: { author_id: { eq: '$userId' } } } },
  },
};
/** A resource the `user` role may not read at all. */
const SECRETS_RESOURCE: ResourceDefinition = {
  enableSoftDelete: false,
  fields: { note: { type: 'string' } },
  permissions: { editor: { read: true, create: true } },
};
const RESOURCES = { posts: POSTS_RESOURCE, comments: COMMENTS_RESOURCE, secrets: SECRETS_RESOURCE };

interface Payload {
  old: Record<string, unknown> | null;
  new: Record<string, unknown> | null;
}
const payloadOf = (block: SseBlock): Payload => JSON.parse(block.data ?? '{"old":null,"new":null}') as Payload;
/** What a block says, compactly: its event type and the record's `title` or `body`. */
const said = (block: SseBlock): string => {
  const record = payloadOf(block).new ?? payloadOf(block).old ?? {};
  return `${block.event} ${String(record.title ?? record.body)}`;
};
const json = (value: unknown) => encodeURIComponent(JSON.stringify(value));

interface ErrorDocument {
  errors: { status: string; code: string; source?: { parameter?: string }; meta?: { pointer?: string } }[];
}

for (const dialect of testDialects()) {
  describe(`streams of several resources (${dialect})`, () => {
    let t: StreamTestApp;
    const clients: SseClient[] = [];
    let next = 0;
    const user = () => t.key('user', `multi-${dialect}-${next++}`);

    const connect = async (query: string, key: TestKey = t.editor, headers: Record<string, string> = {}) => {
      const client = await SseClient.connect(`${t.baseUrl}/v1/stream?${query}`, {
        headers: { authorization: key.authorization, ...headers },
      });
      clients.push(client);
      assert.equal(client.status, 200, client.status === 200 ? '' : await client.body());
      await client.waitFor((b) => b.comments.includes('connected'), { what: 'the connected comment' });
      return client;
    };
    const answer = async (url: string, key: TestKey = t.editor, method = 'GET') => {
      const response = await t.app.inject({
        method: method as 'GET',
        url,
        headers: { authorization: key.authorization },
      });
      return { status: response.statusCode, document: response.json() as ErrorDocument };
    };
    const create = async (resource: string, attributes: Record<string, unknown>): Promise<string> => {
      const response = await t.app.inject({
        method: 'POST',
        url: `/v1/${resource}`,
        headers: { authorization: t.editor.authorization },
        payload: attributes,
      });
      assert.equal(response.statusCode, 201, response.body);
      return (response.json() as { data: { id: string } }).data.id;
    };
    /** Several writes in one transaction: their events are published together, in this order. */
    const batch = async (...writes: [string, Record<string, unknown>][]) => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/v1/operations',
        headers: {
          authorization: t.editor.authorization,
          'content-type': 'application/vnd.api+json;ext="https://jsonapi.org/ext/atomic"',
        },
        payload: JSON.stringify({
          'atomic:operations': writes.map(([type, attributes]) => ({ op: 'add', data: { type, attributes } })),
        }),
      });
      assert.equal(response.statusCode, 200, response.body);
    };
    /** A comment every stream below admits, written last: once it arrives, every earlier event has too. */
    const marker = async (client: SseClient, authorId?: string) => {
      const body = `marker ${next++}`;
      await create('comments', { body, ...(authorId ? { author_id: authorId } : {}) });
      await client.waitFor((b) => b.event === 'comments.created' && payloadOf(b).new?.body === body, { what: body });
      return client.events.filter((b) => !said(b).includes('marker'));
    };

    before(async () => {
      t = await startStreamTestApp({ dialect, resources: RESOURCES, stream: { replayWindow: 1000 } });
    });
    after(async () => {
      for (const client of clients) client.close();
      await t.close();
    });

    it('sends the changes of every listed resource, each through its own filter and fields, in commit order', async () => {
      const client = await connect(
        `resources=posts,comments&_filter[posts]=${json({ status: { eq: 'published' } })}&fields[comments]=body`,
      );
      await batch(
        ['posts', { title: 'P1', status: 'published' }],
        ['comments', { body: 'C1', author_id: 'someone', internal: 'x' }],
        ['posts', { title: 'P2 draft', status: 'draft' }],
        ['secrets', { note: 'not listed' }],
        ['posts', { title: 'P3', status: 'published' }],
        ['comments', { body: 'C2' }],
      );
      const seen = await marker(client);
      assert.deepEqual(seen.map(said), [
        'posts.created P1',
        'comments.created C1',
        'posts.created P3',
        'comments.created C2',
      ]);
      // fields[comments] narrowed the comments only; posts keep every readable field.
      assert.deepEqual(Object.keys(payloadOf(seen[1]!).new!).sort(), ['body', 'created_at', 'id', 'updated_at']);
      assert.ok('status' in payloadOf(seen[0]!).new!);
    });

    it("applies each resource's row filter and readable fields for the caller", async () => {
      const me = await user();
      const client = await connect('resources=posts,comments', me);
      await create('posts', { title: 'mine', author_id: me.userId, secret: 's' });
      await create('posts', { title: 'theirs', author_id: 'other' });
      await create('comments', { body: 'my comment', author_id: me.userId, internal: 'i' });
      await create('comments', { body: 'their comment', author_id: 'other' });
      const seen = await marker(client, me.userId);
      assert.deepEqual(seen.map(said), ['posts.created mine', 'comments.created my comment']);
      assert.equal('secret' in payloadOf(seen[0]!).new!, false);
      assert.equal('internal' in payloadOf(seen[1]!).new!, false);
    });

    it('resumes every resource from one Last-Event-ID, in commit order, through the same filters', async () => {
      const query = `resources=comments,posts&_filter[posts]=${json({ title: { like: 'R%' } })}`;
      const first = await connect(query);
      await create('posts', { title: 'R0' });
      const anchor = await first.waitFor((b) => said(b) === 'posts.created R0', { what: 'R0' });
      first.close();
      await batch(['comments', { body: 'R1' }], ['posts', { title: 'not R' }], ['posts', { title: 'R2' }]);
      await create('comments', { body: 'R3' });
      const resumed = await connect(query, t.editor, { 'last-event-id': anchor.id! });
      const seen = await marker(resumed);
      assert.deepEqual(seen.map(said), ['comments.created R1', 'posts.created R2', 'comments.created R3']);
      // The ids are those of the events: resuming from the last one replays nothing.
      const again = await connect(query, t.editor, { 'last-event-id': seen.at(-1)!.id! });
      assert.deepEqual((await marker(again)).map(said), []);
    });

    it('answers reset for an unknown id, and for the id of an event of a resource not in the list', async () => {
      const posts = await connect('resources=posts');
      await create('posts', { title: 'anchor elsewhere' });
      const anchor = await posts.waitFor((b) => said(b) === 'posts.created anchor elsewhere', { what: 'anchor' });
      for (const id of ['00000000-0000-4000-8000-000000000000', 'not-an-id', anchor.id!]) {
        const client = await connect('resources=comments,secrets', t.editor, { 'last-event-id': id });
        const reset = await client.waitFor((b) => b.event !== undefined, { what: 'reset' });
        assert.equal(reset.event, 'reset', id);
      }
    });

    it('refuses a resource the caller may not read as its own stream does, naming resources, before reading filters', async () => {
      const me = await user();
      for (const name of ['secrets', 'nothere']) {
        const single = await answer(`/v1/${name}/stream`, me);
        // A broken filter for it does not change the answer: it is not read.
        const multi = await answer(`/v1/stream?resources=posts,${name}&_filter[${name}]=not-json`, me);
        assert.equal(multi.status, single.status, name);
        assert.equal(multi.document.errors[0]!.code, single.document.errors[0]!.code, name);
        assert.equal(multi.document.errors[0]!.source?.parameter, 'resources');
      }
      assert.equal((await answer('/v1/stream?resources=secrets', me)).status, 403);
      assert.equal((await answer('/v1/stream?resources=nothere', me)).status, 404);
    });

    it("refuses a filter on a field the caller may not read as the resource's own stream does", async () => {
      const me = await user();
      const filter = json({ secret: { eq: 'x' } });
      const single = await answer(`/v1/posts/stream?_filter=${filter}`, me);
      const multi = await answer(`/v1/stream?resources=posts,comments&_filter[posts]=${filter}`, me);
      assert.equal(single.status, 400);
      assert.equal(multi.status, 400);
      assert.equal(multi.document.errors[0]!.code, single.document.errors[0]!.code);
      assert.equal(multi.document.errors[0]!.source?.parameter, '_filter[posts]');
      assert.equal(multi.document.errors[0]!.meta?.pointer, single.document.errors[0]!.meta?.pointer);
    });

    it('refuses malformed lists and parameters with 400 naming each', async () => {
      const cases: [string, string][] = [
        ['', 'resources'],
        ['resources=', 'resources'],
        ['resources=posts,posts', 'resources'],
        ['resources=Posts', 'resources'],
        [`resources=${Array.from({ length: 21 }, (_, i) => `r${i}`).join(',')}`, 'resources'],
        ['resources=posts&resources=comments', 'resources'],
        ['resources=posts&status=published', 'status'],
        ['resources=posts&_filter[comments]={}', '_filter[comments]'],
        ['resources=posts&fields[constructor]=body', 'fields[constructor]'],
        ['resources=posts&fields[posts]=nope', 'fields[posts]'],
        ['resources=posts&events=nope', 'events'],
        ['resources=posts&_sort=title', '_sort'],
        ['resources=posts&lastEventId=a&lastEventId=b', 'lastEventId'],
      ];
      for (const [query, parameter] of cases) {
        const { status, document } = await answer(`/v1/stream?${query}`);
        assert.equal(status, 400, query);
        assert.equal(document.errors[0]!.code, 'INVALID_QUERY_PARAMS', query);
        assert.equal(document.errors[0]!.source?.parameter, parameter, query);
      }
      const anonymous = await t.app.inject({ method: 'GET', url: '/v1/stream?resources=posts' });
      assert.equal(anonymous.statusCode, 401);
      for (const method of ['POST', 'DELETE']) {
        const { status, document } = await answer('/v1/stream?resources=posts', t.editor, method);
        assert.equal(status, 405, method);
        assert.equal(document.errors[0]!.code, 'METHOD_NOT_ALLOWED');
      }
    });

    it('ends with revoked when the key is disabled', async () => {
      const me = await user();
      const client = await connect('resources=posts,comments', me);
      const keys = await t.app.inject({
        method: 'GET',
        url: `/admin/keys?userId=${encodeURIComponent(me.userId)}`,
        headers: { authorization: adminAuthorization(t.config) },
      });
      const keyId = (keys.json() as { data: { id: string }[] }).data[0]!.id;
      const disabled = await t.app.inject({
        method: 'PATCH',
        url: `/admin/keys/${keyId}`,
        headers: { authorization: adminAuthorization(t.config) },
        payload: { enabled: false },
      });
      assert.equal(disabled.statusCode, 200, disabled.body);
      await client.waitFor((b) => b.event === 'revoked', { what: 'revoked' });
      await client.ended;
    });
  });

  describe(`streams of several resources: bounds and reloads (${dialect})`, () => {
    it('counts a connection of several resources once against the per-key cap', async () => {
      const t = await startStreamTestApp({ dialect, resources: RESOURCES, stream: { maxPerKey: 1 } });
      const clients: SseClient[] = [];
      try {
        const me = await t.key('user', `multi-cap-${dialect}`);
        const open = async (path: string) => {
          const client = await SseClient.connect(`${t.baseUrl}${path}`, {
            headers: { authorization: me.authorization },
          });
          clients.push(client);
          return client;
        };
        const both = await open('/v1/stream?resources=posts,comments');
        assert.equal(both.status, 200);
        await both.waitFor((b) => b.comments.includes('connected'));
        const second = await open('/v1/posts/stream');
        assert.equal(second.status, 429);
        both.close();
        await both.ended;
        const deadline = Date.now() + 3000;
        let again = await open('/v1/posts/stream');
        while (again.status === 429 && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          again = await open('/v1/posts/stream');
        }
        assert.equal(again.status, 200);
      } finally {
        for (const client of clients) client.close();
        await t.close();
      }
    });

    it('resets when one resource had more events than the replay window since the id, and replays when it had fewer', async () => {
      const t = await startStreamTestApp({ dialect, resources: RESOURCES, stream: { replayWindow: 3 } });
      const clients: SseClient[] = [];
      try {
        const connect = async (lastEventId?: string) => {
          const client = await SseClient.connect(`${t.baseUrl}/v1/stream?resources=posts,comments`, {
            headers: {
              authorization: t.editor.authorization,
              ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
            },
          });
          clients.push(client);
          return client;
        };
        const live = await connect();
        await t.createPost({ title: 'anchor' });
        const anchor = await live.waitFor((b) => b.event === 'posts.created');
        const comment = async (body: string) => {
          const response = await t.app.inject({
            method: 'POST',
            url: '/v1/comments',
            headers: { authorization: t.editor.authorization },
            payload: { body },
          });
          assert.equal(response.statusCode, 201);
        };
        await comment('c1');
        await comment('c2');
        await t.createPost({ title: 'p1' });
        await t.createPost({ title: 'p2' });
        // Two of each since the anchor: both under the window of 3, so all four are replayed.
        const within = await connect(anchor.id);
        await within.waitFor((b) => said(b) === 'posts.created p2', { what: 'p2' });
        assert.deepEqual(within.events.map(said), [
          'comments.created c1',
          'comments.created c2',
          'posts.created p1',
          'posts.created p2',
        ]);
        await comment('c3');
        const beyond = await connect(anchor.id);
        const first = await beyond.waitFor((b) => b.event !== undefined, { what: 'an event' });
        assert.equal(first.event, 'reset');
      } finally {
        for (const client of clients) client.close();
        await t.close();
      }
    });

    it('ends the connection with revoked when a reload narrows any one of its resources', async () => {
      const t = await startStreamTestApp({ dialect, resources: RESOURCES, configFile: true });
      try {
        const me = await t.key('user', `multi-reload-${dialect}`);
        const client = await SseClient.connect(`${t.baseUrl}/v1/stream?resources=posts,comments`, {
          headers: { authorization: me.authorization },
        });
        await client.waitFor((b) => b.comments.includes('connected'));
        // The same definitions: nothing ends, and the stream still delivers.
        await t.reload(RESOURCES);
        await t.createPost({ title: 'after the same reload', author_id: me.userId });
        await client.waitFor((b) => said(b) === 'posts.created after the same reload', { what: 'the post' });
        assert.equal(client.blocks.filter((b) => b.event === 'revoked').length, 0);
        const user = COMMENTS_RESOURCE.permissions!.user!;
        await t.reload({
          ...RESOURCES,
          comments: {
            ...COMMENTS_RESOURCE,
            permissions: {
              ...COMMENTS_RESOURCE.permissions,
              user: { read: { ...(user.read as object), fields: ['author_id'] } },
            },
          },
        });
        const revoked = await client.waitFor((b) => b.event === 'revoked', { what: 'revoked' });
        assert.match(revoked.data ?? '', /resource definitions changed/);
        client.close();
      } finally {
        await t.close();
      }
    });
  });
}
