// kill -9 in the middle of writes and webhook deliveries, then a restart on the same database: every
// create that was answered 201 is there, every record has exactly its one event and its delivery, nothing
// exists without the other, and every event reaches the webhook receiver after the restart.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { sql } from 'kysely';
import { createStore } from '../../src/store/create-store.ts';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/test-databases.ts';
import { SvcProcess, eventually, writeConfigFile } from '../helpers/svc-process.ts';

const SVC = join(import.meta.dirname, '../../bin/svc.js');
const ADMIN = 'kill-test-admin-token-0123456789';
const PASSWORD = 'correct horse battery staple';
const WORKERS = 6;
const LOAD_MS = 1500;

/** Answers after a short wait, so deliveries are in flight when the process dies; counts by event id. */
async function startSlowReceiver(): Promise<{ server: Server; url: string; received: Map<string, number> }> {
  const received = new Map<string, number>();
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const id = String(request.headers['webhook-id']);
      setTimeout(() => {
        received.set(id, (received.get(id) ?? 0) + 1);
        response.writeHead(204).end();
      }, 100);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    server,
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hook`,
    received,
  };
}

for (const dialect of testDialects()) {
  describe(`kill -9 during writes and deliveries (${dialect})`, { timeout: 180_000 }, () => {
    let database: TestDatabase;
    let node: SvcProcess | undefined;
    let receiver: Awaited<ReturnType<typeof startSlowReceiver>> | undefined;

    after(async () => {
      await node?.stop('SIGKILL');
      receiver?.server.close();
      await database?.drop();
    });

    it('loses no acknowledged record, event or delivery', async () => {
      database = await createTestDatabase(dialect);
      const env = { SVC_SECRET: 'kill-test-secret-0123456789abcdef' };
      const configFile = writeConfigFile({
        database: { url: database.url },
        adminToken: ADMIN,
        webhooks: { allowPrivateTargets: true, pollIntervalMs: 100, timeoutMs: 2000 },
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
          'k@kill.test',
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
      receiver = await startSlowReceiver();
      node = await SvcProcess.start(configFile, env);
      const token = await fetch(`${node.baseUrl}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'k@kill.test', password: PASSWORD }),
      });
      const key = ((await token.json()) as { key: string }).key;
      const hook = await fetch(`${node.baseUrl}/admin/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'all', url: receiver.url, eventPattern: 'posts.created' }),
      });
      assert.equal(hook.status, 201);
      const webhookId = ((await hook.json()) as { data: { id: string } }).data.id;

      const acknowledged: string[] = [];
      let failed = 0;
      const base = node.baseUrl;
      const deadline = Date.now() + LOAD_MS + 5000;
      const load = Array.from({ length: WORKERS }, async (_, worker) => {
        for (let n = 0; Date.now() < deadline && n < 10_000; n++) {
          try {
            const response = await fetch(`${base}/v1/posts`, {
              method: 'POST',
              headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
              body: JSON.stringify({ title: `worker ${worker} post ${n}` }),
              signal: AbortSignal.timeout(5000),
            });
            if (response.status !== 201) throw new Error(`status ${response.status}`);
            acknowledged.push(((await response.json()) as { data: { id: string } }).data.id);
          } catch {
            // The process is gone: this write may or may not have committed; it was not acknowledged.
            failed++;
            return;
          }
        }
      });
      await new Promise((resolve) => setTimeout(resolve, LOAD_MS));
      const inFlightDeliveries = receiver.received.size;
      await node.stop('SIGKILL');
      await Promise.all(load);
      assert.ok(acknowledged.length > 0, 'writes were acknowledged before the kill');

      node = await SvcProcess.start(configFile, env);
      const store = createStore(database.url);
      try {
        const posts = await store.db.selectFrom('posts').select('id').execute();
        const ids = new Set(posts.map((row) => String(row.id)));
        for (const id of acknowledged) assert.ok(ids.has(id), `acknowledged ${id} is there`);
        const events = await store.db
          .selectFrom('svc_events')
          .select(['id', 'resource_id'])
          .where('type', '=', 'posts.created')
          .execute();
        assert.equal(events.length, ids.size, 'one created event per record');
        assert.deepEqual(new Set(events.map((e) => String(e.resource_id))), ids, 'no event without its record');
        const deliveries = await store.db
          .selectFrom('svc_webhook_deliveries')
          .select(sql<number>`count(distinct event_id)`.as('n'))
          .where('webhook_id', '=', webhookId)
          .executeTakeFirstOrThrow();
        assert.equal(Number(deliveries.n), ids.size, 'a delivery queued for every event');

        // After the restart every event reaches the receiver (an attempt cut by the kill is sent again).
        const eventIds = events.map((e) => String(e.id));
        await eventually(
          async () => eventIds.every((id) => receiver!.received.has(id)),
          `all ${eventIds.length} events delivered (${inFlightDeliveries} before the kill)`,
          60_000,
        );
      } finally {
        await store.close();
      }
      process.stdout.write(
        `# kill -9 (${dialect}): ${acknowledged.length} acknowledged, ${failed} cut off, all present with event and delivery\n`,
      );
    });
  });
}
