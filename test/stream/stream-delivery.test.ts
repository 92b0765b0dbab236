// GET /v1/:resource/stream over a real socket: headers, preamble, heartbeat, delivery of each kind,
// the `events` and `fields` parameters, and the caller's read filter and readable fields.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SseClient, type SseBlock } from '../helpers/sse-client.ts';
import { adminAuthorization, startStreamTestApp, type StreamTestApp } from '../helpers/stream-test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';

interface EventPayload {
  old: Record<string, unknown> | null;
  new: Record<string, unknown> | null;
  changes: { added: string[]; updated: string[]; removed: string[] };
}

const payloadOf = (block: SseBlock): EventPayload => JSON.parse(block.data ?? 'null') as EventPayload;

for (const dialect of testDialects()) {
  describe(`stream delivery (${dialect})`, () => {
    let t: StreamTestApp;
    const clients: SseClient[] = [];
    const connect = async (query: string, authorization: string, headers: Record<string, string> = {}) => {
      const client = await SseClient.connect(`${t.baseUrl}/v1/posts/stream${query}`, {
        headers: { authorization, ...headers },
      });
      clients.push(client);
      return client;
    };
    const connected = async (query: string, authorization = t.editor.authorization) => {
      const client = await connect(query, authorization);
      assert.equal(client.status, 200, await (client.status === 200 ? Promise.resolve('') : client.body()));
      await client.waitFor((b) => b.comments.includes('connected'), { what: 'the connected comment' });
      return client;
    };

    before(async () => {
      t = await startStreamTestApp({ dialect, stream: { heartbeatMs: 100, retryMs: 1500 } });
    });

    after(async () => {
      for (const client of clients) client.close();
      await t.close();
    });

    it('answers with the SSE headers, keeps X-Request-Id, and starts with retry and a connected comment', async () => {
      const client = await connect('', t.editor.authorization, {
        'x-request-id': 'stream-req-1',
        origin: 'http://localhost:5173',
      });
      assert.equal(client.status, 200);
      assert.equal(client.headers['content-type'], 'text/event-stream');
      assert.equal(client.headers['cache-control'], 'no-cache');
      assert.equal(client.headers.connection, 'keep-alive');
      assert.equal(client.headers['x-accel-buffering'], 'no');
      assert.equal(client.headers['x-request-id'], 'stream-req-1');
      assert.equal(client.headers['access-control-allow-origin'], 'http://localhost:5173');
      assert.match(String(client.headers['ratelimit-limit']), /^\d+$/);
      const first = await client.waitFor(() => true, { what: 'the preamble' });
      assert.equal(first.retry, 1500);
      assert.deepEqual(first.comments, ['connected']);
      client.close();
    });

    it('sends a heartbeat comment every heartbeatMs', async () => {
      const client = await connected('');
      const start = client.blocks.length;
      await client.waitFor((b) => b.comments.includes('heartbeat'), {
        from: start,
        timeoutMs: 2000,
        what: 'a heartbeat',
      });
      await client.waitFor((b) => b.comments.includes('heartbeat'), {
        from: client.blocks.length,
        timeoutMs: 2000,
        what: 'a second heartbeat',
      });
      client.close();
    });

    it('delivers created, updated and deleted events with event, data, id and retry', async () => {
      const client = await connected('');
      const id = await t.createPost({ title: 'Hello', body: 'first', author_id: 'u1' });
      await t.patchPost(id, { title: 'Hello again', secret: 's3' });
      await t.deletePost(id);
      const [created, updated, deleted] = await client.waitForEvents(3);
      assert.equal(created!.event, 'posts.created');
      assert.equal(updated!.event, 'posts.updated');
      assert.equal(deleted!.event, 'posts.deleted');
      for (const block of [created!, updated!, deleted!]) {
        assert.match(block.id ?? '', /^[0-9a-f-]{36}$/);
        assert.equal(block.retry, 1500);
        assert.match(block.raw, /^event: .+\ndata: .+\nid: .+\nretry: 1500\n\n$/);
      }
      const c = payloadOf(created!);
      assert.equal(c.old, null);
      assert.equal(c.new?.id, id);
      assert.equal(c.new?.title, 'Hello');
      assert.ok(typeof c.new?.created_at === 'string' && typeof c.new?.updated_at === 'string');
      const u = payloadOf(updated!);
      assert.equal(u.old?.title, 'Hello');
      assert.equal(u.new?.title, 'Hello again');
      assert.deepEqual(u.changes, { added: ['secret'], updated: ['title'], removed: [] });
      const d = payloadOf(deleted!);
      assert.equal(d.old?.id, id);
      assert.equal(d.new, null);
    });

    it('delivers only the kinds named in `events`', async () => {
      const client = await connected('?events=created,deleted');
      const id = await t.createPost({ title: 'Kinds' });
      await t.patchPost(id, { title: 'Kinds 2' });
      await t.deletePost(id);
      const events = await client.waitForEvents(2);
      assert.deepEqual(
        events.map((e) => e.event),
        ['posts.created', 'posts.deleted'],
      );
      // The update would have come between the two; make sure nothing else is on its way.
      await t.createPost({ title: 'marker' });
      await client.waitForEvents(3);
      assert.deepEqual(
        client.events.map((e) => e.event),
        ['posts.created', 'posts.deleted', 'posts.created'],
      );
    });

    it('intersects `fields` with the readable fields, keeps system fields, and reduces `changes`', async () => {
      const user = await t.key('user', 'fields-user');
      // `secret` exists but the user may not read it: dropped silently (spec 6.1 rule 1).
      const client = await connected('?fields=title,secret,id', user.authorization);
      const id = await t.createPost({ title: 'Fields', body: 'b', author_id: user.userId, secret: 'x' });
      await t.patchPost(id, { title: 'Fields 2', body: 'b2', secret: 'y' });
      const [created, updated] = await client.waitForEvents(2);
      const c = payloadOf(created!);
      assert.deepEqual(Object.keys(c.new ?? {}).sort(), ['created_at', 'id', 'title', 'updated_at']);
      const u = payloadOf(updated!);
      assert.deepEqual(Object.keys(u.old ?? {}).sort(), ['created_at', 'id', 'title', 'updated_at']);
      assert.deepEqual(u.changes, { added: [], updated: ['title'], removed: [] });
    });

    it('never includes fields the caller may not read', async () => {
      const user = await t.key('user', 'unreadable-user');
      const client = await connected('', user.authorization);
      await t.createPost({ title: 'Secretive', author_id: user.userId, secret: 'hidden' });
      const [created] = await client.waitForEvents(1);
      const c = payloadOf(created!);
      assert.equal('secret' in (c.new ?? {}), false);
      assert.deepEqual(c.changes.added.sort(), ['author_id', 'status', 'title']);
    });

    it("delivers only rows inside the caller's read filter; a row moving out is deleted, a row moving in is created", async () => {
      const user = await t.key('user', 'row-user');
      const client = await connected('', user.authorization);
      const mine = await t.createPost({ title: 'mine', author_id: user.userId });
      await t.createPost({ title: 'theirs', author_id: 'someone-else' });
      await t.patchPost(mine, { title: 'mine, edited' });
      await t.patchPost(mine, { author_id: 'someone-else' }); // moves out: the reader's copy must go
      await t.patchPost(mine, { title: 'gone from my view' });
      const theirs = await t.createPost({ title: 'theirs 2', author_id: 'someone-else' });
      await t.patchPost(theirs, { author_id: user.userId }); // moves in: the reader never had it
      await t.deletePost(theirs); // old row matches: delivered
      const events = await client.waitForEvents(5);
      assert.deepEqual(
        events.map((e) => [e.event, payloadOf(e).new?.title ?? payloadOf(e).old?.title]),
        [
          ['posts.created', 'mine'],
          ['posts.updated', 'mine, edited'],
          ['posts.deleted', 'mine, edited'],
          ['posts.created', 'theirs 2'],
          ['posts.deleted', 'theirs 2'],
        ],
      );
      const movedOut = payloadOf(events[2]!);
      assert.equal(movedOut.new, null);
      assert.deepEqual(movedOut.changes, { added: [], updated: [], removed: ['title', 'status', 'author_id'] });
      const movedIn = payloadOf(events[3]!);
      assert.equal(movedIn.old, null);
      assert.deepEqual(movedIn.changes, { added: ['title', 'status', 'author_id'], updated: [], removed: [] });
    });

    it("narrows the delivered fields to an API key's scoped read permissions", async () => {
      const scoped = await t.key('editor', 'scoped-editor', { posts: { read: ['title'] } });
      const client = await connected('', scoped.authorization);
      await t.createPost({ title: 'Scoped', body: 'not in the key scope' });
      const [created] = await client.waitForEvents(1);
      assert.deepEqual(Object.keys(payloadOf(created!).new ?? {}).sort(), ['created_at', 'id', 'title', 'updated_at']);
    });

    it('accepts the admin token and `?token=` in place of the Authorization header', async () => {
      const admin = await connected('', adminAuthorization(t.config));
      const token = t.editor.authorization.replace(/^Bearer /, '');
      const byQuery = await SseClient.connect(`${t.baseUrl}/v1/posts/stream?token=${encodeURIComponent(token)}`);
      clients.push(byQuery);
      assert.equal(byQuery.status, 200);
      await t.createPost({ title: 'for both' });
      await admin.waitForEvents(1);
      await byQuery.waitForEvents(1);
    });
  });
}

describe('stream errors before the stream starts', () => {
  let t: StreamTestApp;
  const keys = new Map<string, string>();
  const keyFor = async (role: string) => {
    // 'create-only-key': an editor whose key may only create posts.
    const key = () =>
      role === 'create-only-key'
        ? t.key('editor', 'create-only-user', { posts: { create: ['*'] } })
        : t.key(role, `${role}-error-user`);
    if (!keys.has(role)) keys.set(role, (await key()).authorization);
    return keys.get(role)!;
  };
  before(async () => {
    t = await startStreamTestApp();
  });
  after(async () => {
    await t.close();
  });

  const scenarios: {
    name: string;
    url: string;
    role?: string;
    auth?: false;
    status: number;
    code: string;
    parameter?: string;
  }[] = [
    { name: 'no Authorization', url: '/v1/posts/stream', auth: false, status: 401, code: 'UNAUTHORIZED' },
    { name: 'unknown resource', url: '/v1/nothing/stream', status: 404, code: 'RESOURCE_NOT_FOUND' },
    { name: 'a role that may not read', url: '/v1/posts/stream', role: 'writer', status: 403, code: 'FORBIDDEN' },
    {
      name: 'a role absent from the permissions',
      url: '/v1/posts/stream',
      role: 'nobody',
      status: 403,
      code: 'FORBIDDEN',
    },
    {
      name: 'a key scoped without read',
      url: '/v1/posts/stream',
      role: 'create-only-key',
      status: 403,
      code: 'KEY_PERMISSION_DENIED',
    },
    {
      name: 'an unknown event kind',
      url: '/v1/posts/stream?events=created,renamed',
      status: 400,
      code: 'INVALID_QUERY_PARAMS',
      parameter: 'events',
    },
    {
      name: 'an empty events list',
      url: '/v1/posts/stream?events=',
      status: 400,
      code: 'INVALID_QUERY_PARAMS',
      parameter: 'events',
    },
    {
      name: 'an unknown field',
      url: '/v1/posts/stream?fields=title,nope',
      status: 400,
      code: 'INVALID_QUERY_PARAMS',
      parameter: 'fields',
    },
    {
      name: 'deleted_at without soft delete',
      url: '/v1/posts/stream?fields=title,deleted_at',
      status: 400,
      code: 'INVALID_QUERY_PARAMS',
      parameter: 'fields',
    },
    {
      name: 'events given twice',
      url: '/v1/posts/stream?events=created&events=deleted',
      status: 400,
      code: 'INVALID_QUERY_PARAMS',
      parameter: 'events',
    },
  ];
  for (const scenario of scenarios) {
    it(`answers ${scenario.status} ${scenario.code} for ${scenario.name}`, async () => {
      const response = await t.app.inject({
        method: 'GET',
        url: scenario.url,
        headers: scenario.auth === false ? {} : { authorization: await keyFor(scenario.role ?? 'editor') },
      });
      assert.equal(response.statusCode, scenario.status, response.body);
      const body = response.json() as { errors: { code: string; source?: { parameter?: string } }[] };
      assert.equal(body.errors[0]?.code, scenario.code);
      if (scenario.parameter) assert.equal(body.errors[0]?.source?.parameter, scenario.parameter);
    });
  }

  it('answers 405 with Allow: GET for other methods on the stream path', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/posts/stream',
      headers: { authorization: t.editor.authorization },
      payload: {},
    });
    assert.equal(response.statusCode, 405);
    assert.equal(response.headers.allow, 'GET');
  });
});

describe('stream authentication by query token', () => {
  it('refuses `?token=` when stream.allowQueryToken is false', async () => {
    const t = await startStreamTestApp({ stream: { allowQueryToken: false } });
    try {
      const token = t.editor.authorization.replace(/^Bearer /, '');
      const response = await t.app.inject({
        method: 'GET',
        url: `/v1/posts/stream?token=${encodeURIComponent(token)}`,
      });
      assert.equal(response.statusCode, 401);
    } finally {
      await t.close();
    }
  });

  it('never writes the query token to the log', async () => {
    const lines: string[] = [];
    const t = await startStreamTestApp({
      logger: { level: 'trace', stream: { write: (line: string) => void lines.push(line) } },
    });
    try {
      const token = t.editor.authorization.replace(/^Bearer /, '');
      const query = `token=${encodeURIComponent(token)}`;
      const missing = await SseClient.connect(`${t.baseUrl}/v1/nothing/stream?${query}`);
      assert.equal(missing.status, 404);
      await missing.body();
      const client = await SseClient.connect(`${t.baseUrl}/v1/posts/stream?${query}&events=nope`);
      assert.equal(client.status, 400);
      await client.body();
      const live = await SseClient.connect(`${t.baseUrl}/v1/posts/stream?${query}`);
      await live.waitFor((b) => b.comments.includes('connected'), { what: 'the connected comment' });
      await t.createPost({ title: 'logged?' });
      await live.waitForEvents(1);
      live.close();
    } finally {
      await t.close();
    }
    assert.ok(lines.length > 0, 'the logger was in use');
    const secret = t.editor.authorization.replace(/^Bearer /, '');
    assert.equal(lines.filter((line) => line.includes(secret)).length, 0);
  });
});
