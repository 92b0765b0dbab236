// A node killed (SIGKILL) while creates with an Idempotency-Key are in flight on it: three svc processes
// on one PostgreSQL database and Redis, a client sending a few hundred creates, each under its own key,
// spread over the nodes, and retrying a create that failed with the same key on another node. The dead
// node's transactions roll back with its connections, so their keys' claims go with them: a retry runs
// (or replays a create that had committed) at once, not after a lease. Afterwards no record is lost or
// doubled, and every acknowledged create has its event on the surviving nodes' streams and its webhook
// delivery (a subscription made on one node just before the creates reaches the others' writes too).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { sql } from 'kysely';
import { createStore } from '../../src/store/create-store.ts';
import { SseClient } from '../helpers/sse-client.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/test-databases.ts';
import { type SvcProcess, eventually, writeConfigFile } from '../helpers/svc-process.ts';
import { createUser, signIn, startNodes } from '../helpers/svc-nodes.ts';

const SKIP =
  !process.env.TEST_DATABASE_URL || !process.env.TEST_REDIS_URL
    ? 'TEST_DATABASE_URL and TEST_REDIS_URL are both needed'
    : false;

const ADMIN = 'kill-create-admin-token-0123456789';
const PASSWORD = 'correct horse battery staple';
const CREATES = 300;
const WORKERS = 6;
/** The node is killed once this many creates were acknowledged, while a create is in flight on it. */
const KILL_AFTER = 100;
/**
 * A correctness bound, not a speed goal: before claims died with their transaction, a retry waited out
 * a 60 s lease. Now a retry runs at once; the bound leaves room for a loaded machine.
 */
const RETRY_WAIT_BOUND_MS = 5_000;
/** How long the client keeps retrying one create (409 or a node that cannot be reached) before giving up. */
const RETRY_GIVE_UP_MS = 20_000;

/** Counts deliveries by the record they carry: a second attempt (at-least-once) shows as 2. */
async function startReceiver(): Promise<{ server: Server; url: string; byRecord: Map<string, number> }> {
  const byRecord = new Map<string, number>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { event: { resourceId: string } };
      byRecord.set(body.event.resourceId, (byRecord.get(body.event.resourceId) ?? 0) + 1);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    server,
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hook`,
    byRecord,
  };
}

/** Record ids of the `posts.created` events a stream delivered. */
function createdIds(client: SseClient): Set<string> {
  const ids = new Set<string>();
  for (const block of client.blocks)
    if (block.event === 'posts.created') ids.add((JSON.parse(block.data!) as { new: { id: string } }).new.id);
  return ids;
}

describe('a node killed mid-create, retries with the same Idempotency-Key on another node', {
  skip: SKIP,
  timeout: 180_000,
}, () => {
  let database: TestDatabase;
  const nodes: SvcProcess[] = [];
  const streams: SseClient[] = [];
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let key: string;

  before(async () => {
    database = await createTestDatabase('postgres');
    const env = { SVC_SECRET: 'kill-create-secret-0123456789abcdef' };
    const configFile = writeConfigFile({
      database: { url: database.url },
      server: { host: '127.0.0.1', port: 0 },
      adminToken: ADMIN,
      redis: { url: process.env.TEST_REDIS_URL },
      webhooks: { allowPrivateTargets: true, pollIntervalMs: 100, timeoutMs: 5000 },
      resources: {
        posts: {
          fields: { title: { type: 'string', required: true } },
          permissions: { editor: { read: true, create: true } },
        },
      },
    });
    createUser(configFile, env, { email: 'k@kill.test', password: PASSWORD, role: 'editor' });
    nodes.push(...(await startNodes(configFile, env, 3)));
    receiver = await startReceiver();
    key = await signIn(nodes[1]!, { email: 'k@kill.test', password: PASSWORD });
    const hook = await fetch(`${nodes[1]!.baseUrl}/admin/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'all', url: receiver.url, eventPattern: 'posts.created' }),
    });
    assert.equal(hook.status, 201, await hook.text());
  });

  after(async () => {
    for (const stream of streams) stream.close();
    await Promise.all(nodes.map((node) => node.stop('SIGTERM')));
    receiver?.server.close();
    await database?.drop();
  });

  it('loses and doubles nothing, delivers every acknowledged create everywhere, and no retry waits long', async () => {
    // Streams on the two nodes that survive (node 0 is the one killed), opened before any write.
    for (const node of nodes.slice(1)) {
      const client = await SseClient.connect(`${node.baseUrl}/v1/posts/stream`, {
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(client.status, 200);
      await client.waitFor((b) => b.comments.includes('connected'), { what: 'the connected comment' });
      streams.push(client);
    }

    const dead = new Set<number>();
    const acknowledged = new Map<string, { id: string; replayed: boolean }>();
    /** How long each create that had to be retried waited, from its first failure to its 201. */
    const retryWaits: number[] = [];
    const failures = { reset: 0, refused: 0, inUse: 0 };
    let killed: Promise<unknown> | undefined;

    const createOne = async (i: number): Promise<void> => {
      const idempotencyKey = randomUUID();
      const title = `post-${i}-${idempotencyKey}`;
      let target = i % nodes.length;
      let firstFailure: number | undefined;
      const giveUpAt = Date.now() + RETRY_GIVE_UP_MS;
      for (;;) {
        if (Date.now() > giveUpAt) throw new Error(`create ${i} was not acknowledged within ${RETRY_GIVE_UP_MS} ms`);
        let status: number;
        let body: { data?: { id: string } } = {};
        let replayed = false;
        try {
          const sending = fetch(`${nodes[target]!.baseUrl}/v1/posts`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${key}`,
              'content-type': 'application/json',
              'idempotency-key': idempotencyKey,
            },
            body: JSON.stringify({ title }),
          });
          // Killed a moment after a create went out to it: the node dies with requests in flight.
          if (target === 0 && acknowledged.size >= KILL_AFTER && killed === undefined)
            killed = new Promise((resolve) => setTimeout(resolve, 2)).then(() => nodes[0]!.stop('SIGKILL'));
          const response = await sending;
          status = response.status;
          replayed = response.headers.get('idempotency-replayed') === 'true';
          body = (await response.json()) as typeof body;
        } catch (error) {
          // The node died with the request in flight (reset) or before it (refused): retry elsewhere.
          const code = (error as { cause?: { code?: string } }).cause?.code;
          if (code === 'ECONNREFUSED') failures.refused++;
          else failures.reset++;
          dead.add(target);
          firstFailure ??= Date.now();
          target = [0, 1, 2].find((n) => n !== target && !dead.has(n))!;
          continue;
        }
        if (status === 201) {
          acknowledged.set(title, { id: body.data!.id, replayed });
          if (firstFailure !== undefined) retryWaits.push(Date.now() - firstFailure);
          return;
        }
        assert.equal(status, 409, `create ${i} answered ${status}: ${JSON.stringify(body)}`);
        failures.inUse++;
        firstFailure ??= Date.now();
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };

    let next = 0;
    await Promise.all(
      Array.from({ length: WORKERS }, async () => {
        while (next < CREATES) await createOne(next++);
      }),
    );
    await killed;
    assert.ok(dead.has(0), 'node 0 was killed while the client still sent to it');
    assert.ok(failures.reset > 0, `a create was in flight on node 0 when it died (${JSON.stringify(failures)})`);
    assert.equal(acknowledged.size, CREATES, 'every create was acknowledged');
    assert.ok(retryWaits.length > 0, 'some creates had to be retried on another node');
    const longest = Math.max(...retryWaits);
    assert.ok(longest < RETRY_WAIT_BOUND_MS, `a retry waited ${longest} ms (${JSON.stringify(failures)})`);

    // No record lost or doubled: one row per title, the one its 201 named.
    const store = createStore(database.url);
    try {
      const { rows } = await sql<{ id: string; title: string }>`select id, title from posts`.execute(store.db);
      assert.equal(rows.length, CREATES, 'one row per create');
      const byTitle = new Map(rows.map((row) => [row.title, row.id]));
      for (const [title, { id }] of acknowledged) assert.equal(byTitle.get(title), id, `the record of ${title}`);
    } finally {
      await store.close();
    }

    // Every acknowledged create's event on every surviving stream, and its delivery.
    const ids = [...acknowledged.values()].map(({ id }) => id);
    for (const [n, stream] of streams.entries()) {
      await eventually(
        async () => ids.every((id) => createdIds(stream).has(id)),
        `every created event on node ${n + 1}'s stream`,
        30_000,
      );
      assert.equal(
        stream.blocks.filter((b) => b.event === 'posts.created').length,
        CREATES,
        `no event twice on node ${n + 1}'s stream`,
      );
    }
    await eventually(
      async () => ids.every((id) => receiver.byRecord.has(id)),
      'a webhook delivery for every created record',
      30_000,
    );
    process.stdout.write(
      `# killed mid-create: ${JSON.stringify(failures)}, ${retryWaits.length} retried, longest wait ${longest} ms, ` +
        `${[...acknowledged.values()].filter((a) => a.replayed).length} replayed\n`,
    );
  });
});
