// The retention job inside a running app: it prunes both tables on its interval by the `retention`
// config, counts what it deleted in /metrics, stops with the app, and runs safely on two nodes at once.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/server.ts';
import type { RetentionConfig } from '../../src/config/config-types.ts';
import { appendEvent, EVENTS_TABLE } from '../../src/events/outbox.ts';
import { countOutbox } from '../../src/events/outbox-pruner.ts';
import type { RecordEvent } from '../../src/model/record-event.ts';
import type { Db } from '../../src/store/store-dialect.ts';
import { createStore } from '../../src/store/create-store.ts';
import { uuidv7 } from '../../src/store/uuid-v7.ts';
import { uuidv7At } from '../helpers/uuidv7-at.ts';
import { DeliveryRepository } from '../../src/webhooks/delivery/delivery-repository.ts';
import { DELIVERIES_TABLE } from '../../src/webhooks/webhook-tables.ts';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/test-databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testConfig, TEST_ADMIN_TOKEN } from '../helpers/test-config.ts';
import { parseExposition, sampleValue } from '../helpers/prometheus-text.ts';
import { fakeEvent } from '../helpers/fake-event.ts';

const HOUR = 3_600_000;
const STREAM = { heartbeatMs: 30000, retryMs: 3000, allowQueryToken: true, replayWindow: 2 };

function retention(overrides: Partial<RetentionConfig> = {}): RetentionConfig {
  return {
    intervalMs: 50,
    batchSize: 2,
    events: { maxAgeMs: HOUR, maxCount: 1_000_000 },
    deliveries: { maxAgeMs: HOUR, maxCount: 1_000_000 },
    ...overrides,
  };
}

function oldEvent(resource: string): RecordEvent {
  return fakeEvent(resource, new Date(Date.now() - 2 * HOUR).toISOString());
}

async function countDeliveries(db: Db): Promise<number> {
  const row = await db.selectFrom(DELIVERIES_TABLE).select(sql<number>`count(*)`.as('n')).executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Polls without a deadline of its own beyond a generous one: the machine is shared and slow. */
async function eventually(condition: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(25);
  }
}

async function prunedMetric(app: FastifyInstance, table: string): Promise<number | undefined> {
  const response = await app.inject({
    method: 'GET',
    url: '/metrics',
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
  });
  assert.equal(response.statusCode, 200, response.body);
  return sampleValue(parseExposition(response.body), 'svc_retention_pruned_rows_total', { table });
}

for (const dialect of testDialects()) {
  describe(`retention job in a running app (${dialect})`, () => {
    let t: TestApp;

    before(async () => {
      t = await startTestApp(dialect, { stream: STREAM, retention: retention() });
    });

    after(async () => {
      await t?.close();
    });

    it('prunes old events outside the window and finished deliveries on its interval, and counts them', async () => {
      const { db } = t.ctx.store;
      assert.equal(await prunedMetric(t.app, EVENTS_TABLE), 0, 'exposed from the start');
      for (let i = 0; i < 5; i++) await appendEvent(t.ctx.store, db, oldEvent('posts'));
      const deliveries = new DeliveryRepository(t.ctx.store);
      // An unsent attempt, due in an hour: the queue, which retention must leave alone.
      const dueAt = new Date(Date.now() + HOUR).toISOString();
      const queued = {
        id: uuidv7(),
        webhookId: 'wh-gone',
        eventId: uuidv7(),
        eventType: 'posts.created',
        attemptNumber: 1,
        requestPayload: '{}',
        targetUrl: 'http://127.0.0.1:9/hook',
        dueAt,
      };
      await deliveries.queue([queued]);
      const old = t.ctx.store.dialect.encode('timestamp', new Date(Date.now() - 2 * HOUR).toISOString());
      for (let i = 0; i < 3; i++) {
        await db
          .insertInto(DELIVERIES_TABLE)
          .values({
            ...row(uuidv7At(Date.now() - 2 * HOUR)),
            status: 'success',
            http_status: 200,
            delivered_at: old,
            created_at: old,
          })
          .execute();
      }

      await eventually(
        async () => (await countOutbox(db, 'posts')) === 2 && (await countDeliveries(db)) === 1,
        'both tables are pruned',
      );
      const left = await db.selectFrom(DELIVERIES_TABLE).select('id').execute();
      assert.deepEqual(
        left.map((r) => String(r.id)),
        [queued.id],
        'the queued attempt stays',
      );
      // A batch is counted once its DELETE has answered, which may be just after another connection sees it.
      const counted = async () =>
        ((await prunedMetric(t.app, EVENTS_TABLE)) ?? 0) + ((await prunedMetric(t.app, DELIVERIES_TABLE)) ?? 0);
      await eventually(async () => (await counted()) >= 6, 'the metric counts the deleted rows');
      assert.equal(await prunedMetric(t.app, EVENTS_TABLE), 3);
      assert.equal(await prunedMetric(t.app, DELIVERIES_TABLE), 3);
    });
  });

  describe(`retention on two nodes of one database (${dialect})`, () => {
    let database: TestDatabase;
    const apps: FastifyInstance[] = [];
    const warnings: string[] = [];
    const logStream = { write: (line: string) => void warnings.push(line) };

    before(async () => {
      database = await createTestDatabase(dialect);
      for (let i = 0; i < 2; i++) {
        const config = testConfig(database.url, {
          stream: STREAM,
          retention: retention({ intervalMs: 20, batchSize: 7 }),
        });
        const { app } = await buildApp({ config, logger: { level: 'warn', stream: logStream } });
        await app.ready();
        apps.push(app);
      }
    });

    after(async () => {
      for (const app of apps) await app.close();
      await database?.drop();
    });

    it('deletes a backlog once between them: the counts add up to the rows deleted', async () => {
      // A third connection writes the backlog, as a node that wrote it earlier would have.
      const { db } = createStore(database.url);
      try {
        const events = Array.from({ length: 300 }, () => oldEvent('posts'));
        await db
          .insertInto(EVENTS_TABLE)
          .values(
            events.map((e) => ({
              id: e.id,
              type: e.type,
              resource: e.resource,
              resource_id: e.resourceId,
              payload: JSON.stringify(e),
              created_at: e.createdAt,
            })),
          )
          .execute();
        await eventually(
          async () => (await countOutbox(db, 'posts')) === 2,
          'the backlog is pruned down to the window',
        );
        // A batch is counted once its DELETE has answered, which may be just after another connection sees it.
        const counted = async () => {
          const perNode = await Promise.all(apps.map((app) => prunedMetric(app, EVENTS_TABLE)));
          return perNode.reduce<number>((sum, n) => sum + (n ?? 0), 0);
        };
        await eventually(async () => (await counted()) >= 298, 'the nodes have counted their batches');
        assert.equal(await counted(), 298, 'each deleted row counted once');
        const failures = warnings.filter((line) => line.includes('retention'));
        assert.deepEqual(failures, [], 'no pass failed (no lock wait timed out, no deadlock)');
      } finally {
        await db.destroy();
      }
    });
  });
}

/** A settled attempt record's columns, apart from its outcome. */
function row(id: string) {
  return {
    id,
    webhook_id: 'wh-gone',
    event_id: uuidv7(),
    event_type: 'posts.created',
    request_payload: '{}',
    attempt_number: 1,
    target_url: 'http://127.0.0.1:9/hook',
    target_host: '127.0.0.1:9',
  };
}
