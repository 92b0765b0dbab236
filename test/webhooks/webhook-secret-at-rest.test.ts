// Webhook signing secrets at rest: stored sealed (`enc:v1:`, AES-256-GCM under a key derived from
// SVC_SECRET), clear rows of an older version sealed at start (once, however often it runs), a rotation
// through SVC_SECRET_PREVIOUS, a start refused when no given secret opens them, and deliveries still
// signed with the secret the subscriber was given.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { buildApp } from '../../src/server.ts';
import type { SvcConfig } from '../../src/config/config-types.ts';
import { createStore } from '../../src/store/create-store.ts';
import { WEBHOOKS_TABLE } from '../../src/webhooks/webhook-tables.ts';
import { sealWebhookSecrets } from '../../src/webhooks/subscriptions/seal-webhook-secrets.ts';
import { webhookSecretBox } from '../../src/webhooks/subscriptions/webhook-secret-box.ts';
import { testConfig, TEST_ADMIN_TOKEN } from '../helpers/test-config.ts';
import { authorizationFor } from '../helpers/test-auth.ts';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/test-databases.ts';
import { startReceiver, type Receiver, type ReceivedRequest } from './fixtures/receiver.ts';
import { WEBHOOK_TEST_RESOURCES, WEBHOOK_TEST_SETTINGS } from './fixtures/webhook-test-app.ts';

const SECRET_A = 'first service secret, at least 32 characters long';
const SECRET_B = 'second service secret, at least 32 characters long';
const SECRET_C = 'a third secret nobody told the service about, 32+';
const ADMIN = `Bearer ${TEST_ADMIN_TOKEN}`;

function verifies(request: ReceivedRequest, secret: string): boolean {
  try {
    new Webhook(secret).verify(request.body, {
      'webhook-id': String(request.headers['webhook-id']),
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': String(request.headers['webhook-signature']),
    });
    return true;
  } catch {
    return false;
  }
}

/** Runs `body` with SVC_SECRET (and SVC_SECRET_PREVIOUS) set as given, then restores them. */
async function withSecrets<T>(current: string, previous: string | undefined, body: () => Promise<T>): Promise<T> {
  const saved = { current: process.env.SVC_SECRET, previous: process.env.SVC_SECRET_PREVIOUS };
  process.env.SVC_SECRET = current;
  if (previous === undefined) delete process.env.SVC_SECRET_PREVIOUS;
  else process.env.SVC_SECRET_PREVIOUS = previous;
  try {
    return await body();
  } finally {
    if (saved.current === undefined) delete process.env.SVC_SECRET;
    else process.env.SVC_SECRET = saved.current;
    if (saved.previous === undefined) delete process.env.SVC_SECRET_PREVIOUS;
    else process.env.SVC_SECRET_PREVIOUS = saved.previous;
  }
}

for (const dialect of testDialects()) {
  describe(`webhook signing secrets at rest (${dialect})`, () => {
    let database: TestDatabase;
    let config: SvcConfig;
    let receiver: Receiver;
    let webhookId: string;
    let secret: string;
    let posts = 0;

    before(async () => {
      database = await createTestDatabase(dialect);
      config = testConfig(database.url, { resources: WEBHOOK_TEST_RESOURCES, webhooks: WEBHOOK_TEST_SETTINGS });
      receiver = await startReceiver();
    });
    after(async () => {
      await receiver.close();
      await database.drop();
    });

    const storedSecret = async (): Promise<string> => {
      const store = createStore(database.url);
      try {
        const row = await store.db
          .selectFrom(WEBHOOKS_TABLE)
          .select('secret')
          .where('id', '=', webhookId)
          .executeTakeFirstOrThrow();
        return String(row.secret);
      } finally {
        await store.close();
      }
    };

    /** Starts svc, creates a post as the admin's editor would, and checks the delivery's signature. */
    async function deliverySigned(): Promise<void> {
      const { app, ctx } = await buildApp({ config });
      try {
        await app.ready();
        const editor = await authorizationFor(app, ctx, 'editor', `editor-${posts + 1}`);
        const created = await app.inject({
          method: 'POST',
          url: '/v1/posts',
          headers: { authorization: editor },
          payload: { title: `post ${++posts}` },
        });
        assert.equal(created.statusCode, 201, created.body);
        const requests = await receiver.waitForRequests(posts);
        assert.ok(
          verifies(requests[posts - 1]!, secret),
          'the delivery is signed with the secret the subscriber was given',
        );
      } finally {
        await app.close();
      }
    }

    it("stores a new subscription's secret sealed, never in clear", async () => {
      await withSecrets(SECRET_A, undefined, async () => {
        const { app } = await buildApp({ config, startWorkers: false });
        try {
          const created = await app.inject({
            method: 'POST',
            url: '/admin/webhooks',
            headers: { authorization: ADMIN },
            payload: { name: 'hook', url: receiver.url(), eventPattern: 'posts.created' },
          });
          assert.equal(created.statusCode, 201, created.body);
          webhookId = created.json().data.id;
          secret = created.json().data.attributes.secret;
        } finally {
          await app.close();
        }
        const stored = await storedSecret();
        assert.match(stored, /^enc:v1:[\w-]+:[\w-]+:[\w-]+$/);
        assert.ok(!stored.includes(secret.slice('whsec_'.length, 20)), 'no part of the secret is stored in clear');
        await deliverySigned();
      });
    });

    it('seals a clear secret left by an older version at start, and a second run changes nothing', async () => {
      const store = createStore(database.url);
      try {
        await store.db.updateTable(WEBHOOKS_TABLE).set({ secret }).where('id', '=', webhookId).execute();
      } finally {
        await store.close();
      }
      await withSecrets(SECRET_A, undefined, async () => {
        await deliverySigned();
        const sealed = await storedSecret();
        assert.match(sealed, /^enc:v1:/);
        const again = createStore(database.url);
        try {
          assert.deepEqual(await sealWebhookSecrets(again, webhookSecretBox(SECRET_A)), { sealed: 0, resealed: 0 });
        } finally {
          await again.close();
        }
        assert.equal(await storedSecret(), sealed, 'the second run left the row as it was');
      });
    });

    it('rotates: with the old secret in SVC_SECRET_PREVIOUS, one start seals everything under the new one', async () => {
      const before = await storedSecret();
      await withSecrets(SECRET_B, SECRET_A, deliverySigned);
      const after = await storedSecret();
      assert.notEqual(after, before);
      assert.equal(webhookSecretBox(SECRET_B).open(after, webhookId)?.plain, secret, 'the new secret alone opens it');
      assert.equal(webhookSecretBox(SECRET_A).open(after, webhookId), undefined, 'the old secret no longer does');
      // Later starts need only the new secret.
      await withSecrets(SECRET_B, undefined, deliverySigned);
    });

    it('refuses to start when no given secret opens a stored one, and says what to do', async () => {
      const store = createStore(database.url);
      try {
        await withSecrets(SECRET_C, undefined, async () => {
          await assert.rejects(
            buildApp({ config, store, startWorkers: false }),
            /cannot be decrypted with SVC_SECRET.*SVC_SECRET_PREVIOUS/,
          );
        });
      } finally {
        await store.close();
      }
    });

    it('binds a sealed secret to its subscription: copied to another id it does not open', () => {
      const box = webhookSecretBox(SECRET_B);
      const sealed = box.seal(secret, webhookId);
      assert.equal(box.open(sealed, webhookId)?.plain, secret);
      assert.equal(box.open(sealed, '0190c2a4-0000-7000-8000-000000000000'), undefined);
    });
  });
}
