// SIGTERM on a busy process: it stops accepting connections, finishes the request in flight and the
// webhook attempt in hand (recorded once, not sent again), ends streams with a reconnection hint, writes
// the buffered usage counters, and exits 0 within the bound.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { join } from 'node:path';
import { createStore } from '../../src/store/create-store.ts';
import { SseClient } from '../helpers/sse-client.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/test-databases.ts';
import { SvcProcess, eventually, writeConfigFile } from '../helpers/svc-process.ts';

const SVC = join(import.meta.dirname, '../../bin/svc.js');
const ADMIN = 'shutdown-test-admin-token-012345';
const PASSWORD = 'correct horse battery staple';
const HOLD_MS = 1500;
const EXIT_BOUND_MS = 15_000;

describe('graceful shutdown on SIGTERM', { timeout: 120_000 }, () => {
  let database: TestDatabase;
  let node: SvcProcess | undefined;
  let receiver: Server | undefined;

  after(async () => {
    await node?.stop('SIGKILL');
    receiver?.close();
    await database?.drop();
  });

  it('finishes what is in flight, tells streams to reconnect, flushes counters and exits 0', async () => {
    database = await createTestDatabase('sqlite');
    const configFile = writeConfigFile({
      database: { url: database.url },
      adminToken: ADMIN,
      webhooks: { allowPrivateTargets: true, pollIntervalMs: 100, timeoutMs: 5000 },
      stream: { retryMs: 2500 },
      resources: {
        posts: {
          fields: { title: { type: 'string', required: true } },
          permissions: { editor: { read: true, create: true } },
        },
      },
    });
    const created = spawnSync(
      process.execPath,
      [
        SVC,
        'users',
        'create',
        '--config',
        configFile,
        '--email',
        's@shutdown.test',
        '--password',
        PASSWORD,
        '--role',
        'editor',
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    assert.equal(created.status, 0, created.stderr);

    // The receiver holds each delivery for a while, so one is in hand when SIGTERM arrives.
    let held = 0;
    let answered = 0;
    receiver = createServer((req, res) => {
      req.resume();
      held++;
      setTimeout(() => {
        answered++;
        res.writeHead(204).end();
      }, HOLD_MS);
    });
    await new Promise<void>((resolve) => receiver!.listen(0, '127.0.0.1', resolve));
    const receiverPort = (receiver.address() as { port: number }).port;

    node = await SvcProcess.start(configFile);
    const base = node.baseUrl;
    const port = Number(new URL(base).port);
    const key = (await (
      await fetch(`${base}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 's@shutdown.test', password: PASSWORD }),
      })
    ).json()) as { key: string; id: string };
    const auth = { authorization: `Bearer ${key.key}` };
    let keyed = 0;
    const hook = await fetch(`${base}/admin/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'held',
        url: `http://127.0.0.1:${receiverPort}/hook`,
        eventPattern: 'posts.created',
      }),
    });
    assert.equal(hook.status, 201);

    const stream = await SseClient.connect(`${base}/v1/posts/stream`, { headers: auth });
    keyed++;
    await stream.waitFor((b) => b.comments.includes('connected'), { what: 'connected' });
    for (let i = 0; i < 5; i++) {
      assert.equal((await fetch(`${base}/v1/posts`, { headers: auth })).status, 200);
      keyed++;
    }
    const post = await fetch(`${base}/v1/posts`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'delivered while stopping' }),
    });
    assert.equal(post.status, 201);
    keyed++;
    await eventually(async () => held === 1, 'the delivery reached the receiver');

    // A request whose body is still arriving when the signal comes.
    const body = JSON.stringify({ title: 'in flight during SIGTERM' });
    const inFlight = new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/v1/posts',
          headers: { ...auth, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 10));
      setTimeout(() => req.end(body.slice(10)), 800);
    });
    keyed++;
    await new Promise((resolve) => setTimeout(resolve, 200));

    const signalledAt = Date.now();
    const exited = node.stop('SIGTERM', EXIT_BOUND_MS + 5000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // New work is refused once stopping: 503 while in-flight work drains, then no connection at all.
    const refused = await fetch(`${base}/v1/posts`, { signal: AbortSignal.timeout(3000) }).then(
      async (response) => ({ status: response.status, body: await response.text() }),
      () => ({ status: 0, body: '' }),
    );
    if (refused.status !== 0) {
      assert.equal(refused.status, 503, refused.body);
      assert.equal(
        (JSON.parse(refused.body) as { errors: Array<{ code: string }> }).errors[0]!.code,
        'SERVICE_UNAVAILABLE',
      );
    }
    assert.equal(await inFlight, 201, 'the request in flight was finished');
    await stream.ended;
    const last = stream.blocks.at(-1);
    assert.equal(last?.retry, 2500, 'the stream ends with a reconnection hint');

    assert.equal(await exited, 0);
    assert.ok(Date.now() - signalledAt < EXIT_BOUND_MS, 'exited within the bound');
    assert.equal(answered, 1, 'the attempt in hand was answered before the exit');

    const store = createStore(database.url);
    try {
      const deliveries = await store.db
        .selectFrom('svc_webhook_deliveries')
        .select(['status', 'http_status'])
        .orderBy('created_at')
        .execute();
      // The attempt in hand is recorded once, as delivered; the request finished during the shutdown
      // queued its own delivery, which waits (durably) for the next start instead of being sent late.
      assert.deepEqual(
        deliveries.map((d) => d.status),
        ['success', 'pending'],
      );
      assert.equal(Number(deliveries[0]!.http_status), 204);
      const row = await store.db
        .selectFrom('svc_api_keys')
        .select('request_count')
        .where('id', '=', key.id)
        .executeTakeFirstOrThrow();
      assert.equal(Number(row.request_count), keyed, 'every request counted, none lost at exit');
    } finally {
      await store.close();
    }
  });
});
