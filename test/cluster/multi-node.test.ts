// Three real `svc start` processes on one PostgreSQL database and one Redis, no proxy in front: a write
// on any node reaches the stream clients of every node and the webhook receiver exactly once; rate
// limits are shared; a key disabled on one node is refused by the others at once (not after the cache
// TTL); resource definitions reloaded on one node (SIGHUP) are served by the others, and a reload that
// narrows a role's read ends that role's streams on every node.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { SseClient } from '../helpers/sse-client.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/test-databases.ts';
import { SvcProcess, eventually, writeConfigFile } from '../helpers/svc-process.ts';

const SKIP =
  !process.env.TEST_DATABASE_URL || !process.env.TEST_REDIS_URL
    ? 'TEST_DATABASE_URL and TEST_REDIS_URL are both needed'
    : false;
if (SKIP) process.stdout.write(`# SKIP several svc nodes: ${SKIP}\n`);

const SVC = join(import.meta.dirname, '../../bin/svc.js');
const ADMIN = 'cluster-test-admin-token-0123456789';
const PASSWORD = 'correct horse battery staple';
const WRITES_PER_NODE = 8;

const POSTS = {
  fields: { title: { type: 'string', required: true }, views: { type: 'integer', default: 0, sortable: true } },
  permissions: { editor: { read: true, create: true, update: true, delete: true } },
};

function clusterConfig(databaseUrl: string, resources: Record<string, unknown>): Record<string, unknown> {
  return {
    database: { url: databaseUrl },
    server: { host: '127.0.0.1', port: 0 },
    adminToken: ADMIN,
    redis: { url: process.env.TEST_REDIS_URL },
    auth: { defaultRole: 'editor' },
    webhooks: { allowPrivateTargets: true, pollIntervalMs: 200 },
    resources,
  };
}

interface Json {
  data?: unknown;
  errors?: Array<{ code: string }>;
  key?: string;
  id?: string;
}

async function call(
  base: string,
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<{ status: number; json: Json }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: (text ? JSON.parse(text) : {}) as Json };
}

/** Counts deliveries by event id: a second attempt for one event would show as 2. */
function startReceiver(): Promise<{ server: Server; url: string; received: Map<string, number> }> {
  const received = new Map<string, number>();
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const id = String(request.headers['webhook-id']);
      received.set(id, (received.get(id) ?? 0) + 1);
      response.writeHead(204).end();
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      resolve({ server, url: `http://127.0.0.1:${port}/hook`, received });
    });
  });
}

describe('several svc nodes on one PostgreSQL and Redis', { skip: SKIP, timeout: 240_000 }, () => {
  let database: TestDatabase;
  let configFile: string;
  const nodes: SvcProcess[] = [];
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let key: string;
  let keyId: string;

  before(async () => {
    database = await createTestDatabase('postgres');
    configFile = writeConfigFile(clusterConfig(database.url, { posts: POSTS }));
    const env = { SVC_SECRET: 'cluster-test-secret-0123456789abcdef' };
    const created = spawnSync(
      process.execPath,
      [
        SVC,
        'users',
        'create',
        '--config',
        configFile,
        '--email',
        'ed@cluster.test',
        '--password',
        PASSWORD,
        '--role',
        'editor',
      ],
      {
        encoding: 'utf8',
        env: { ...process.env, ...env },
        timeout: 60_000,
      },
    );
    assert.equal(created.status, 0, created.stderr + created.stdout);
    // The first node creates the tables; the others start together on the applied schema.
    nodes.push(await SvcProcess.start(configFile, env));
    nodes.push(...(await Promise.all([SvcProcess.start(configFile, env), SvcProcess.start(configFile, env)])));
    receiver = await startReceiver();

    const token = await fetch(`${nodes[1]!.baseUrl}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ed@cluster.test', password: PASSWORD }),
    });
    const issued = (await token.json()) as { key: string; id: string };
    assert.equal(token.status, 201);
    key = issued.key;
    keyId = issued.id;
  });

  after(async () => {
    await Promise.all(nodes.map((node) => node.stop('SIGTERM')));
    receiver?.server.close();
    await database?.drop();
  });

  it('delivers every write on any node to stream clients on every node and to the webhook receiver, each exactly once', async () => {
    const hook = await call(nodes[0]!.baseUrl, 'POST', '/admin/webhooks', ADMIN, {
      name: 'all posts',
      url: receiver.url,
      eventPattern: 'posts.created',
    });
    assert.equal(hook.status, 201);
    const webhookId = (hook.json.data as { id: string }).id;
    // The other nodes hear of the subscription through the signal table (every 0.5 s).
    await new Promise((resolve) => setTimeout(resolve, 1500));

    const clients = await Promise.all(
      nodes.map((node) =>
        SseClient.connect(`${node.baseUrl}/v1/posts/stream?events=created`, {
          headers: { authorization: `Bearer ${key}` },
        }),
      ),
    );
    try {
      for (const client of clients)
        await client.waitFor((b) => b.comments.includes('connected'), { what: 'connected' });
      const created: string[] = [];
      await Promise.all(
        nodes.map(async (node, n) => {
          for (let i = 0; i < WRITES_PER_NODE; i++) {
            const response = await call(node.baseUrl, 'POST', '/v1/posts', key, { title: `node ${n} post ${i}` });
            assert.equal(response.status, 201);
            created.push((response.json.data as { id: string }).id);
          }
        }),
      );
      const total = nodes.length * WRITES_PER_NODE;
      for (const client of clients) {
        await client.waitForEvents(total, 15_000);
        const ids = client.events.map((event) => (JSON.parse(event.data ?? '{}') as { new: { id: string } }).new.id);
        assert.deepEqual([...ids].sort(), [...created].sort(), 'each node streams every write once');
      }
      await eventually(async () => receiver.received.size >= total, `${total} webhook deliveries`, 20_000);
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(receiver.received.size, total);
      assert.ok(
        [...receiver.received.values()].every((n) => n === 1),
        'no event delivered twice',
      );
      const deliveries = await call(
        nodes[2]!.baseUrl,
        'GET',
        `/admin/webhooks/${webhookId}/deliveries?_limit=100`,
        ADMIN,
      );
      const records = deliveries.json.data as Array<{ attributes: { status: string } }>;
      assert.equal(records.length, total, 'one delivery record per attempt');
      assert.ok(records.every((record) => record.attributes.status === 'success'));
    } finally {
      for (const client of clients) client.close();
    }
  });

  it('shares one rate limit between the nodes', async () => {
    const token = await fetch(`${nodes[2]!.baseUrl}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        email: 'ed@cluster.test',
        password: PASSWORD,
        rateLimitMax: 6,
        rateLimitTimeWindow: 60_000,
      }),
    });
    const limited = ((await token.json()) as { key: string }).key;
    const statuses: number[] = [];
    for (let round = 0; round < 3; round++) {
      for (const node of nodes) statuses.push((await call(node.baseUrl, 'GET', '/v1/posts?_limit=1', limited)).status);
    }
    // Six requests in all are allowed, wherever they land; per-node counters would allow 18.
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 429, 429, 429]);
  });

  it('refuses a key disabled on one node on every node at once, not after the key cache expires', async () => {
    for (const node of nodes) assert.equal((await call(node.baseUrl, 'GET', '/v1/posts?_limit=1', key)).status, 200);
    const disabled = await call(nodes[0]!.baseUrl, 'PATCH', `/admin/keys/${keyId}`, ADMIN, { enabled: false });
    assert.equal(disabled.status, 200);
    // The cache keeps keys 5 s; the signal reaches the other nodes within about one 0.5 s poll.
    const startedAt = Date.now();
    for (const node of nodes.slice(1)) {
      await eventually(
        async () => (await call(node.baseUrl, 'GET', '/v1/posts?_limit=1', key)).status === 401,
        'the key refused',
        4000,
      );
    }
    assert.ok(Date.now() - startedAt < 4000);
    const refused = await call(nodes[2]!.baseUrl, 'GET', '/v1/posts?_limit=1', key);
    assert.equal(refused.json.errors?.[0]?.code, 'API_KEY_DISABLED');
    assert.equal(
      (await call(nodes[0]!.baseUrl, 'PATCH', `/admin/keys/${keyId}`, ADMIN, { enabled: true })).status,
      200,
    );
    for (const node of nodes) {
      await eventually(
        async () => (await call(node.baseUrl, 'GET', '/v1/posts?_limit=1', key)).status === 200,
        'the key accepted again',
        4000,
      );
    }
  });

  it('serves resource definitions reloaded on one node (SIGHUP) from every node', async () => {
    const comments = {
      fields: {
        body: { type: 'text', required: true },
        post_id: { type: 'relation', resource: 'posts', onDelete: 'cascade' },
      },
      permissions: { editor: { read: true, create: true } },
    };
    const posts = { ...POSTS, fields: { ...POSTS.fields, subtitle: { type: 'string', maxLength: 80 } } };
    for (const node of nodes) assert.equal((await call(node.baseUrl, 'GET', '/v1/comments', key)).status, 404);
    writeFileSync(configFile, stringify(clusterConfig(database.url, { posts, comments })));
    nodes[0]!.child.kill('SIGHUP');
    await nodes[0]!.waitForOutput(/resource definitions reloaded/);
    for (const node of nodes) {
      await eventually(
        async () => (await call(node.baseUrl, 'GET', '/v1/comments', key)).status === 200,
        `comments served by ${node.baseUrl}`,
        5000,
      );
    }
    const post = await call(nodes[2]!.baseUrl, 'POST', '/v1/posts', key, {
      title: 'with a subtitle',
      subtitle: 'added by a reload elsewhere',
    });
    assert.equal(post.status, 201, JSON.stringify(post.json));
    const postId = (post.json.data as { id: string; attributes: Record<string, unknown> }).id;
    assert.equal(
      (post.json.data as { attributes: Record<string, unknown> }).attributes.subtitle,
      'added by a reload elsewhere',
    );
    const comment = await call(nodes[1]!.baseUrl, 'POST', '/v1/comments', key, { body: 'first', post_id: postId });
    assert.equal(comment.status, 201, JSON.stringify(comment.json));
    const openApi = (await (await fetch(`${nodes[1]!.baseUrl}/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    assert.ok('/v1/comments' in openApi.paths);
  });

  it('keeps the running definitions when a reload would lose data', async () => {
    writeFileSync(configFile, stringify(clusterConfig(database.url, { posts: POSTS })));
    nodes[1]!.child.kill('SIGHUP');
    await nodes[1]!.waitForOutput(/lose data.*reloading the config failed/);
    for (const node of nodes) assert.equal((await call(node.baseUrl, 'GET', '/v1/comments', key)).status, 200);
  });

  it('ends the streams of a role whose read a reload (SIGHUP) narrowed, on every node within a second', async () => {
    const comments = {
      fields: {
        body: { type: 'text', required: true },
        post_id: { type: 'relation', resource: 'posts', onDelete: 'cascade' },
      },
      permissions: { editor: { read: true, create: true } },
    };
    const fields = { ...POSTS.fields, subtitle: { type: 'string', maxLength: 80 } };
    const streams = await Promise.all(
      nodes.map(async (node) => {
        const client = await SseClient.connect(`${node.baseUrl}/v1/posts/stream`, {
          headers: { authorization: `Bearer ${key}` },
        });
        assert.equal(client.status, 200);
        await client.waitFor((b) => b.comments.includes('connected'), { what: 'the connected comment' });
        return client;
      }),
    );
    try {
      // The editor may no longer read `views`: every editor stream on every node ends.
      const narrower = {
        ...POSTS,
        fields,
        permissions: { editor: { read: { fields: ['title', 'subtitle'] }, create: true, update: true, delete: true } },
      };
      writeFileSync(configFile, stringify(clusterConfig(database.url, { posts: narrower, comments })));
      const since = Date.now();
      nodes[0]!.child.kill('SIGHUP');
      for (const [n, client] of streams.entries()) {
        const block = await client.waitFor((b) => b.event === 'revoked', {
          timeoutMs: 5000,
          what: `the revoked event on node ${n}`,
        });
        const elapsed = Date.now() - since;
        assert.match(block.data ?? '', /resource definitions changed/);
        // The bound (a second) plus slack for three processes on a loaded two-core machine.
        assert.ok(elapsed < 1500, `node ${n}'s stream was revoked ${elapsed} ms after the SIGHUP`);
      }
    } finally {
      for (const client of streams) client.close();
    }
  });

  it('stops every node on SIGTERM', async () => {
    const codes = await Promise.all(nodes.map((node) => node.stop('SIGTERM')));
    assert.deepEqual(codes, [0, 0, 0]);
  });
});
