// A webhook subscription created on one node applies at once to the records created on another, whose
// cache of subscriptions has not been reloaded yet (no Redis here to tell it, so it would reload only
// on its next refresh): every event committed after the subscription's 201 is delivered to it. Before
// the catch-up (webhooks/delivery/delivery-catch-up.ts) most such creates were never delivered.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/test-databases.ts';
import { eventually, type SvcProcess, writeConfigFile } from '../helpers/svc-process.ts';
import { createUser, signIn, startNodes } from '../helpers/svc-nodes.ts';

const ADMIN = 'other-node-admin-token-0123456789';
const USER = { email: 'o@other.test', password: 'correct horse battery staple', role: 'editor' };
const ROUNDS = 3;
/** The bound docs/webhooks.md states for a subscription's first deliveries from another node. */
const DELIVERED_WITHIN_MS = 10_000;

/** Records the record id of every delivery, by the path (one per subscription) it came to. */
async function startReceiver(): Promise<{ server: Server; port: number; byPath: Map<string, Map<string, number>> }> {
  const byPath = new Map<string, Map<string, number>>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { event: { resourceId: string } };
      const ids = byPath.get(request.url!) ?? new Map<string, number>();
      ids.set(body.event.resourceId, (ids.get(body.event.resourceId) ?? 0) + 1);
      byPath.set(request.url!, ids);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { server, port: typeof address === 'object' && address ? address.port : 0, byPath };
}

for (const dialect of testDialects()) {
  describe(`a subscription created on another node (${dialect})`, { timeout: 120_000 }, () => {
    let database: TestDatabase;
    let nodes: SvcProcess[] = [];
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    let key: string;

    before(async () => {
      database = await createTestDatabase(dialect);
      // Two processes on one SQLite file share its data folder (and so its service secret), as on one machine.
      const env = { SVC_SECRET: 'other-node-secret-0123456789abcdef' };
      const configFile = writeConfigFile({
        database: { url: database.url },
        dataDir: mkdtempSync(join(tmpdir(), 'svc-other-node-data-')),
        adminToken: ADMIN,
        webhooks: { allowPrivateTargets: true, pollIntervalMs: 100, timeoutMs: 5000 },
        resources: {
          posts: {
            fields: { title: { type: 'string', required: true } },
            permissions: { editor: { read: true, create: true } },
          },
        },
      });
      createUser(configFile, env, USER);
      nodes = await startNodes(configFile, env, 2);
      key = await signIn(nodes[1]!, USER);
      receiver = await startReceiver();
    });

    after(async () => {
      await Promise.all(nodes.map((node) => node.stop('SIGTERM')));
      receiver?.server.close();
      await database?.drop();
    });

    it("delivers the other node's creates made right after the subscription's 201", async () => {
      const expected = new Map<string, string>();
      for (let round = 0; round < ROUNDS; round++) {
        const path = `/hook-${round}`;
        const hook = await fetch(`${nodes[0]!.baseUrl}/admin/webhooks`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            name: `round ${round}`,
            url: `http://127.0.0.1:${receiver.port}${path}`,
            eventPattern: 'posts.created',
          }),
        });
        assert.equal(hook.status, 201, await hook.text());
        const created = await fetch(`${nodes[1]!.baseUrl}/v1/posts`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ title: `round ${round}` }),
        });
        assert.equal(created.status, 201, await created.clone().text());
        expected.set(path, ((await created.json()) as { data: { id: string } }).data.id);
      }
      await eventually(
        async () => [...expected].every(([path, id]) => receiver.byPath.get(path)?.has(id) === true),
        `every create delivered to the subscription made just before it: ${JSON.stringify([...receiver.byPath].map(([p, ids]) => [p, [...ids.keys()]]))}`,
        DELIVERED_WITHIN_MS,
      );
      // Both nodes look for the missing deliveries, in turns: each event reaches a subscription once.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      for (const [path, ids] of receiver.byPath)
        for (const [id, count] of ids) assert.equal(count, 1, `${id} was delivered ${count} times to ${path}`);
    });
  });
}
