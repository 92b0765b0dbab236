// svc/client's live queries stay equal to a fresh GET with the same query, through a burst of random
// writes, a dropped connection (resumed with Last-Event-ID, not reloaded) and a role change that narrows
// the read filter (records leave), with a full-text search among them, on SQLite and PostgreSQL, over real sockets with the `eventsource`
// package as Node's EventSource.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EventSource } from 'eventsource';
import { createClient, type LiveQuery } from '../../src/client/index.ts';
import {
  adminAuthorization,
  POSTS_RESOURCE,
  startStreamTestApp,
  type StreamTestApp,
} from '../helpers/stream-test-app.ts';
import type { ResourceDefinition } from '../../src/config/config-types.ts';
import { testDialects } from '../helpers/test-databases.ts';
import { TcpProxy } from '../helpers/tcp-proxy.ts';

const RESOURCES: Record<string, ResourceDefinition> = {
  posts: {
    ...POSTS_RESOURCE,
    fields: {
      ...POSTS_RESOURCE.fields,
      title: { type: 'string', required: true, searchable: true },
      views: { type: 'integer', sortable: true },
    },
    permissions: {
      editor: { read: true, create: true, update: true, delete: true },
      user: {
        read: { fields: ['title', 'body', 'status', 'author_id', 'views'], filter: { author_id: { eq: '$userId' } } },
      },
    },
  },
};

/** A small seeded generator (mulberry32), so a failing burst can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Waits for `condition` (checked every 20 ms, at most `ms`), then reports the last difference. */
async function eventually(condition: () => Promise<string | null>, ms = 15000): Promise<void> {
  const deadline = Date.now() + ms;
  let difference: string | null = 'not checked';
  while (Date.now() < deadline) {
    difference = await condition();
    if (difference === null) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.fail(`the live query never matched a fresh GET: ${difference}`);
}

for (const dialect of testDialects()) {
  describe(`live queries (${dialect})`, () => {
    let t: StreamTestApp;
    let proxy: TcpProxy;
    before(async () => {
      t = await startStreamTestApp({ dialect, resources: RESOURCES, stream: { retryMs: 50 } });
      proxy = await TcpProxy.start(Number(new URL(t.baseUrl).port));
    });
    after(async () => {
      await proxy.close();
      await t.close();
    });

    it('stays equal to a fresh GET through random writes, a dropped connection and a narrowing role change', async () => {
      const userId = `live-${dialect}`;
      const key = await t.key('editor', userId);
      let loads = 0;
      const client = createClient({
        baseUrl: proxy.through(t.baseUrl),
        apiKey: key.authorization.slice('Bearer '.length),
        EventSource,
        fetch: (input, init) => {
          if (init?.method === 'GET' && String(input).includes('status=published')) loads += 1;
          return fetch(input, init);
        },
      });
      // Fresh GETs with the same key, through a client of their own (the loads above count the live queries' only).
      const checker = createClient({ baseUrl: t.baseUrl, apiKey: key.authorization.slice('Bearer '.length) });
      const fields = ['title', 'status', 'author_id', 'views'] as const;
      const queries = {
        // Complete and in the default order: every change is applied here, none reloads.
        published: { filter: { status: 'published' }, fields },
        // Paged and sorted: entries at the page edge reload.
        top: { filter: { views__gte: 3 }, sort: ['-views', 'id'] as const, limit: 5, fields },
        // A pattern: decided by the server.
        pattern: { filter: { title__like: 'a%' }, sort: ['views'] as const },
        // Full-text search, best matches first: decided by the server too.
        searched: { search: 'alpha*', sort: ['-_rank', 'id'] as const, fields },
      };
      const revocations: string[] = [];
      const live: Record<string, LiveQuery<Record<string, unknown>>> = {};
      for (const [name, query] of Object.entries(queries)) {
        live[name] = client.live('posts', {
          ...query,
          onRevoked: (reason) => {
            revocations.push(reason);
            return 'reload';
          },
        }) as LiveQuery<Record<string, unknown>>;
      }
      await Promise.all(Object.values(live).map((query) => query.ready));

      const same = async (): Promise<string | null> => {
        for (const [name, query] of Object.entries(queries)) {
          const fresh = await checker.records('posts').list(query);
          try {
            assert.deepEqual(live[name]!.items, fresh.data);
            assert.equal(live[name]!.total, fresh.total);
          } catch (error) {
            return `${name}: ${(error as Error).message.slice(0, 400)}`;
          }
        }
        return null;
      };

      const next = random(41);
      const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)] as T;
      const ids: string[] = [];
      const burst = async (count: number): Promise<void> => {
        for (let i = 0; i < count; i++) {
          const roll = next();
          const values = {
            title: pick(['alpha', 'beta', 'apple', 'gamma', 'avocado']) + i,
            status: pick(['draft', 'published']),
            views: Math.floor(next() * 10),
            author_id: pick([userId, 'someone-else']),
          };
          if (roll < 0.5 || ids.length < 3) ids.push(await t.createPost(values));
          else if (roll < 0.85)
            await t.patchPost(
              pick(ids),
              pick([
                { views: values.views },
                { status: values.status },
                { title: values.title },
                { author_id: values.author_id },
              ]),
            );
          else await t.deletePost(ids.splice(Math.floor(next() * ids.length), 1)[0] as string);
        }
      };

      await burst(60);
      await eventually(same);
      assert.ok(
        live.published!.items.length > 0 && live.top!.items.length === 5 && live.searched!.items.length > 0,
        'the burst left records in every list',
      );

      // The connection drops; writes happen while the client is away; it resumes with Last-Event-ID.
      const loadsBefore = loads;
      await proxy.cut();
      await burst(20);
      await proxy.restore();
      await eventually(same);
      assert.equal(loads, loadsBefore, 'the complete list was resumed from the stream, not loaded again');

      // A narrowing role change: the stream is revoked, the client reconnects as a `user` and reloads.
      const demoted = await t.app.inject({
        method: 'PATCH',
        url: `/admin/users/${encodeURIComponent(userId)}`,
        headers: { authorization: adminAuthorization(t.config) },
        payload: { primaryRole: 'user' },
      });
      assert.equal(demoted.statusCode, 200, demoted.body);
      await eventually(same);
      assert.ok(revocations.length >= 3, 'each live query was told of the revocation');
      for (const query of Object.values(live)) for (const item of query.items) assert.equal(item.author_id, userId);
      await burst(20);
      await eventually(same);

      for (const query of Object.values(live)) query.close();
    });
  });
}
