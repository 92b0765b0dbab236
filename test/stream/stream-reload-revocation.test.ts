// A definitions reload that narrows what a role may read (a field taken from its read list, a narrower
// or new row filter, `read` taken away, the resource disabled or removed) ends that role's open streams
// with `event: revoked`, on the node that reloaded and on every other node of the database; a reload
// that widens access, or changes something else, ends nothing and the stream keeps delivering.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ResourceDefinition } from '../../src/config/config-types.ts';
import { SseClient } from '../helpers/sse-client.ts';
import { POSTS_RESOURCE, startStreamTestApp, type StreamTestApp } from '../helpers/stream-test-app.ts';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/test-databases.ts';
import type { TestKey } from '../helpers/stream-test-keys.ts';

/** The bound the revocation must meet (the "within a second"), plus slack for a loaded machine. */
const REVOCATION_BOUND_MS = 1000;
const SLACK_MS = 500;
const NARROWED_REASON = 'The resource definitions changed what this stream may read; reconnect to be authorized again.';

type UserRead = NonNullable<ResourceDefinition['permissions']>[string];
const USER_READ = POSTS_RESOURCE.permissions!['user']!;

/** `posts` with the `user` role's rules replaced. */
function postsWithUser(user: UserRead, extra: Partial<ResourceDefinition> = {}): Record<string, ResourceDefinition> {
  return { posts: { ...POSTS_RESOURCE, permissions: { ...POSTS_RESOURCE.permissions, user }, ...extra } };
}
const BASE = { posts: POSTS_RESOURCE };
const NOTES: ResourceDefinition = { fields: { text: { type: 'text' } }, permissions: { editor: { read: true } } };

type Role = 'user' | 'editor';
/** `ends`: the roles whose streams the reload must end; the other role's stream must keep delivering. */
const NARROWING: {
  name: string;
  resources: Record<string, ResourceDefinition>;
  ends: Role[];
  refusal?: [number, string];
}[] = [
  {
    name: 'a field taken from the read list',
    resources: postsWithUser({
      read: { fields: ['title', 'status', 'author_id'], filter: { author_id: { eq: '$userId' } } },
    }),
    ends: ['user'],
  },
  {
    name: 'a narrower row filter',
    resources: postsWithUser({
      read: {
        fields: ['title', 'body', 'status', 'author_id'],
        filter: { _and: [{ author_id: { eq: '$userId' } }, { status: { eq: 'published' } }] },
      },
    }),
    ends: ['user'],
  },
  {
    name: 'a row filter for a role that had none',
    resources: {
      posts: {
        ...POSTS_RESOURCE,
        permissions: {
          ...POSTS_RESOURCE.permissions,
          editor: { read: { filter: { status: { eq: 'published' } } }, create: true },
        },
      },
    },
    ends: ['editor'],
  },
  {
    name: '`read` taken away',
    resources: postsWithUser({ create: true }),
    ends: ['user'],
    refusal: [403, 'FORBIDDEN'],
  },
  {
    name: 'the resource disabled',
    resources: { posts: { ...POSTS_RESOURCE, enabled: false } },
    ends: ['user', 'editor'],
    refusal: [404, 'RESOURCE_DISABLED'],
  },
  {
    name: 'the resource removed',
    resources: { notes: NOTES },
    ends: ['user', 'editor'],
    refusal: [404, 'RESOURCE_NOT_FOUND'],
  },
];

const WIDENING: { name: string; resources: Record<string, ResourceDefinition> }[] = [
  {
    name: 'a field added to the read list',
    resources: postsWithUser({
      read: { fields: ['title', 'body', 'status', 'author_id', 'secret'], filter: { author_id: { eq: '$userId' } } },
    }),
  },
  {
    name: 'the row filter dropped',
    resources: postsWithUser({ read: { fields: ['title', 'body', 'status', 'author_id'] } }),
  },
  {
    name: 'the row filter given an alternative',
    resources: postsWithUser({
      read: {
        fields: ['title', 'body', 'status', 'author_id'],
        filter: { _or: [{ author_id: { eq: '$userId' } }, { status: { eq: 'published' } }] },
      },
    }),
  },
  { name: 'another resource added', resources: { posts: POSTS_RESOURCE, notes: NOTES } },
  {
    name: 'another role given rights',
    resources: postsWithUser(USER_READ, {
      permissions: { ...POSTS_RESOURCE.permissions, writer: { create: true, read: { fields: ['title'] } } },
    }),
  },
];

async function open(t: StreamTestApp, key: TestKey): Promise<SseClient> {
  const client = await SseClient.connect(`${t.baseUrl}/v1/posts/stream`, {
    headers: { authorization: key.authorization },
  });
  assert.equal(client.status, 200, client.status === 200 ? '' : await client.body());
  await client.waitFor((b) => b.comments.includes('connected'), { what: 'the connected comment' });
  return client;
}

/** Waits for `event: revoked` and the end of the response; answers how long after `since` and why. */
async function revoked(client: SseClient, since: number): Promise<{ elapsedMs: number; reason: string }> {
  const block = await client.waitFor((b) => b.event === 'revoked', { timeoutMs: 4000, what: 'the revoked event' });
  const elapsedMs = Date.now() - since;
  await Promise.race([
    client.ended,
    new Promise((_, reject) => setTimeout(() => reject(new Error('the stream stayed open after revoked')), 2000)),
  ]);
  return { elapsedMs, reason: (JSON.parse(block.data ?? '{}') as { reason: string }).reason };
}

/** A post the user may read is created on `writer`: the stream must still be open and deliver it. */
async function stillDelivers(writer: StreamTestApp, client: SseClient, user: TestKey): Promise<void> {
  const id = await writer.createPost({ title: 'after the reload', author_id: user.userId, status: 'published' });
  await client.waitFor(
    (b) => b.event === 'posts.created' && (JSON.parse(b.data ?? '{}') as { new?: { id?: string } }).new?.id === id,
    {
      timeoutMs: 5000,
      what: `the created event of ${id}`,
    },
  );
  assert.ok(!client.blocks.some((b) => b.event === 'revoked'), 'the stream was not revoked');
  assert.equal(client.isEnded, false);
}

async function refusal(t: StreamTestApp, key: TestKey): Promise<[number, string | undefined]> {
  const response = await t.app.inject({
    method: 'GET',
    url: '/v1/posts/stream',
    headers: { authorization: key.authorization },
  });
  return [response.statusCode, (response.json() as { errors?: { code: string }[] }).errors?.[0]?.code];
}

for (const dialect of testDialects()) {
  describe(`streams after a definitions reload (${dialect})`, () => {
    let t: StreamTestApp;
    const clients: SseClient[] = [];
    let next = 0;
    const track = (client: SseClient) => {
      clients.push(client);
      return client;
    };

    before(async () => {
      t = await startStreamTestApp({ dialect, configFile: true });
    });
    after(async () => {
      for (const client of clients) client.close();
      await t.close();
    });

    for (const scenario of NARROWING) {
      it(`ends the ${scenario.ends.join(' and ')} streams with revoked after ${scenario.name}, and no other`, async () => {
        await t.reload(BASE);
        const user = await t.key('user', `reload-${dialect}-${next++}`);
        const streams: Record<Role, SseClient> = {
          user: track(await open(t, user)),
          editor: track(await open(t, t.editor)),
        };
        const since = Date.now();
        await t.reload(scenario.resources);
        for (const role of scenario.ends) {
          const { elapsedMs, reason } = await revoked(streams[role], since);
          assert.equal(reason, NARROWED_REASON);
          assert.ok(elapsedMs < REVOCATION_BOUND_MS + SLACK_MS, `revoked after ${elapsedMs} ms`);
        }
        for (const role of ['user', 'editor'] as const)
          if (!scenario.ends.includes(role)) await stillDelivers(t, streams[role], user);
        if (scenario.refusal) assert.deepEqual(await refusal(t, user), scenario.refusal);
        streams.editor.close();
        streams.user.close();
      });
    }

    it('a reconnection after a field was taken away is served under the new rules', async () => {
      await t.reload(BASE);
      const user = await t.key('user', `reload-${dialect}-${next++}`);
      const before = track(await open(t, user));
      const narrower = postsWithUser({
        read: { fields: ['title', 'status', 'author_id'], filter: { author_id: { eq: '$userId' } } },
      });
      await t.reload(narrower);
      await revoked(before, Date.now());
      const again = track(await open(t, user));
      const id = await t.createPost({ title: 't', body: 'no longer readable', author_id: user.userId });
      const block = await again.waitFor((b) => b.event === 'posts.created', { what: 'the created event' });
      const record = (JSON.parse(block.data!) as { new: Record<string, unknown> }).new;
      assert.equal(record['id'], id);
      assert.equal(Object.hasOwn(record, 'body'), false, 'the field taken away is not sent');
    });

    for (const scenario of WIDENING) {
      it(`ends nothing after ${scenario.name}`, async () => {
        await t.reload(BASE);
        const user = await t.key('user', `reload-${dialect}-${next++}`);
        const userStream = track(await open(t, user));
        await t.reload(scenario.resources);
        await stillDelivers(t, userStream, user);
        userStream.close();
      });
    }

    it('ends nothing when the reloaded file has the same definitions', async () => {
      await t.reload(BASE);
      const user = await t.key('user', `reload-${dialect}-${next++}`);
      const userStream = track(await open(t, user));
      await t.reload(structuredClone(BASE));
      await stillDelivers(t, userStream, user);
      userStream.close();
    });
  });
}

const PG_SKIP = process.env.TEST_DATABASE_URL ? false : 'TEST_DATABASE_URL is not set';
describe('streams after a definitions reload on another PostgreSQL node', { skip: PG_SKIP }, () => {
  let database: TestDatabase;
  let a: StreamTestApp;
  let b: StreamTestApp;
  const clients: SseClient[] = [];
  let next = 0;

  before(async () => {
    database = await createTestDatabase('postgres');
    a = await startStreamTestApp({ database, configFile: true });
    b = await startStreamTestApp({ database });
  });
  after(async () => {
    for (const client of clients) client.close();
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  for (const scenario of NARROWING) {
    it(`a reload on node A ends node B's stream within a second after ${scenario.name}`, async () => {
      await a.reload(BASE);
      const user = await b.key('user', `two-nodes-${next++}`);
      // Node B must serve the base definitions before the stream opens (the adoption is asynchronous).
      await sameDefinitions(a, b);
      const role = scenario.ends[0]!;
      const client = await open(b, role === 'user' ? user : b.editor);
      clients.push(client);
      const since = Date.now();
      await a.reload(scenario.resources);
      const { elapsedMs, reason } = await revoked(client, since);
      assert.equal(reason, NARROWED_REASON);
      assert.ok(elapsedMs < REVOCATION_BOUND_MS + SLACK_MS, `revoked on the other node after ${elapsedMs} ms`);
    });
  }

  for (const scenario of WIDENING) {
    it(`a reload on node A that widens (${scenario.name}) ends nothing on node B`, async () => {
      await a.reload(BASE);
      await sameDefinitions(a, b);
      const user = await b.key('user', `two-nodes-${next++}`);
      const client = await open(b, user);
      clients.push(client);
      const adopted = b.ctx.registry.hash;
      await a.reload(scenario.resources);
      // Wait for node B to adopt the new definitions, then show its stream was left open.
      await waitFor(() => b.ctx.registry.hash !== adopted, 'node B adopting the reloaded definitions');
      await stillDelivers(a, client, user);
      client.close();
    });
  }
});

function sameDefinitions(a: StreamTestApp, b: StreamTestApp): Promise<void> {
  return waitFor(() => a.ctx.registry.hash === b.ctx.registry.hash, 'node B serving the definitions node A applied');
}

async function waitFor(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
