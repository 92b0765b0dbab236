// Deliveries survive a crash: a process killed with SIGKILL while a receiver holds its request open
// leaves the attempt claimed; a worker started afterwards on the same database claims it once the
// lease expires, sends the same attempt again, and it is recorded exactly once.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../../src/server.ts';
import { testConfig, TEST_ADMIN_TOKEN } from '../helpers/test-config.ts';
import { createTestDatabase, testDialects } from '../helpers/test-databases.ts';
import { webhookAdminAuthorization, webhookUserAuthorization } from '../helpers/webhook-test-auth.ts';
import type { WebhookDelivery } from '../../src/webhooks/delivery/webhook-delivery.ts';
import { startReceiver } from './fixtures/receiver.ts';
import { WEBHOOK_TEST_RESOURCES, WEBHOOK_TEST_SETTINGS } from './fixtures/webhook-test-app.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/serve-webhook-app.ts', import.meta.url));

/** Starts the app in a child process; resolves once it listens. */
async function serveApp(databaseUrl: string, dataDir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
    env: { ...process.env, SVC_TEST_DATABASE_URL: databaseUrl, SVC_TEST_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  let timer: NodeJS.Timeout | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      timer = setTimeout(() => reject(new Error('the app did not start within 60 s')), 60_000);
      child.once('exit', (code) => reject(new Error(`the app exited with ${code} before listening`)));
      lines.once('line', () => resolve());
    });
    return child;
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', () => resolve()));
}

for (const dialect of testDialects()) {
  describe(`webhook delivery across a crash (${dialect})`, () => {
    it('sends the attempt a SIGKILLed process had in flight again after a restart, and records it once', {
      timeout: 30_000,
    }, async (ctx) => {
      const database = await createTestDatabase(dialect);
      const dataDir = mkdtempSync(join(tmpdir(), 'svc-restart-'));
      let firstArrived!: () => void;
      const arrived = new Promise<void>((resolve) => (firstArrived = resolve));
      // The first request is held open and never answered; later ones succeed.
      const receiver = await startReceiver((_request, response, index) => {
        if (index === 0) firstArrived();
        else response.end('ok');
      });
      // This process writes the change and, after the crash, plays the restarted service: its worker
      // is started only then. The process that crashes is a child running the whole app.
      const config = testConfig(database.url, {
        adminToken: TEST_ADMIN_TOKEN,
        dataDir,
        webhooks: WEBHOOK_TEST_SETTINGS,
        resources: WEBHOOK_TEST_RESOURCES,
      });
      const { app, ctx: appContext } = await buildApp({ config, startWorkers: false });
      let child: ChildProcess | undefined;
      ctx.after(async () => {
        if (child) {
          child.kill('SIGKILL');
          await exited(child);
        }
        await app.close();
        await receiver.close();
        await database.drop();
        rmSync(dataDir, { recursive: true, force: true });
      });
      const admin = webhookAdminAuthorization(config);
      const created = await app.inject({
        method: 'POST',
        url: '/admin/webhooks',
        headers: { authorization: admin },
        payload: { name: 'crash', url: receiver.url(), eventPattern: 'posts.created' },
      });
      assert.equal(created.statusCode, 201, created.body);
      const webhookId = created.json<{ data: { id: string } }>().data.id;
      const editor = await webhookUserAuthorization(app, appContext, 'editor', 'editor-user');

      child = await serveApp(database.url, dataDir);
      const post = await app.inject({
        method: 'POST',
        url: '/v1/posts',
        headers: { authorization: editor },
        payload: { title: 'survives' },
      });
      assert.equal(post.statusCode, 201);
      await arrived;
      child.kill('SIGKILL');
      await exited(child);

      await appContext.webhooks.start();
      const [interrupted, retried] = await receiver.waitForRequests(2, { timeoutMs: 10_000 });
      assert.equal(retried?.headers['x-service-delivery-id'], interrupted?.headers['x-service-delivery-id']);
      assert.equal(retried?.headers['x-service-delivery-attempt'], '1');
      assert.equal(retried?.body, interrupted?.body);

      let records: WebhookDelivery[] = [];
      const deadline = Date.now() + 5000;
      while (Date.now() < deadline) {
        const listed = await app.inject({
          method: 'GET',
          url: `/admin/webhooks/${webhookId}/deliveries`,
          headers: { authorization: admin },
        });
        records = listed
          .json<{ data: { id: string; attributes: Omit<WebhookDelivery, 'id'> }[] }>()
          .data.map((d) => ({ id: d.id, ...d.attributes }));
        if (records.some((r) => r.status === 'success')) break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      assert.equal(records.length, 1, JSON.stringify(records));
      assert.equal(records[0]?.status, 'success');
      assert.equal(records[0]?.attemptNumber, 1);
      assert.equal(records[0]?.id, retried?.headers['x-service-delivery-id']);
      assert.equal(receiver.requests.length, 2);
    });
  });
}
