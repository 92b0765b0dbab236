// Delivery record retention (`retention.deliveries`): records of finished attempts go by age and by
// count; the durable queue (attempts not sent yet, held by a worker, or whose retry is still to come)
// is never touched.
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { createStore, type Store } from '../../src/store/create-store.ts';
import { uuidv7 } from '../../src/store/uuid-v7.ts';
import { uuidv7At } from '../helpers/uuidv7-at.ts';
import { createWebhookTables, DELIVERIES_TABLE } from '../../src/webhooks/webhook-tables.ts';
import { pruneDeliveries, type DeliveryPruneOptions } from '../../src/webhooks/delivery/delivery-retention.ts';
import type { DeliveryStatus } from '../../src/webhooks/delivery/webhook-delivery.ts';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/test-databases.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

interface Attempt {
  status: DeliveryStatus;
  /** How long ago it was queued. */
  age: number;
  /** Set: not sent yet (the queue). */
  dueIn?: number;
  /** Set: a worker holds it under a lease. */
  claimed?: boolean;
  /** Same event and subscription: one chain of retries. */
  chain?: string;
  attempt?: number;
  /** How long ago its id was made, when not as it was queued (svc never makes such a record). */
  idAge?: number;
}

for (const dialect of testDialects()) {
  describe(`delivery record retention (${dialect})`, () => {
    let database: TestDatabase;
    let store: Store;

    /** Inserts an attempt record as the worker leaves it; returns its id. */
    async function insert(attempt: Attempt): Promise<string> {
      const { encode } = store.dialect;
      const now = Date.now();
      const createdAt = now - attempt.age;
      // Made when the record was, as the queue's are: retention bounds its scan by the id's time.
      const id = uuidv7At(now - (attempt.idAge ?? attempt.age));
      const timestamp = (ms: number) => encode('timestamp', new Date(ms).toISOString());
      const retried = attempt.status === 'pending' && attempt.dueIn === undefined;
      await store.db
        .insertInto(DELIVERIES_TABLE)
        .values({
          id,
          webhook_id: 'wh-retention',
          event_id: attempt.chain ?? uuidv7(),
          event_type: 'posts.created',
          status: attempt.status,
          http_status: attempt.status === 'success' ? 200 : null,
          request_payload: '{}',
          delivered_at: attempt.status === 'success' ? timestamp(createdAt) : null,
          attempt_number: attempt.attempt ?? 1,
          next_retry_at: retried ? timestamp(now + MINUTE) : null,
          created_at: timestamp(createdAt),
          target_url: 'http://127.0.0.1:9/hook',
          target_host: '127.0.0.1:9',
          due_at: attempt.dueIn === undefined ? null : timestamp(now + attempt.dueIn),
          claimed_until: attempt.claimed ? timestamp(now + MINUTE) : null,
          claim_token: attempt.claimed ? 'token' : null,
        })
        .execute();
      return id;
    }

    async function remaining(): Promise<Set<string>> {
      const rows = await store.db.selectFrom(DELIVERIES_TABLE).select('id').execute();
      return new Set(rows.map((row) => String(row.id)));
    }

    const prune = (options: Partial<DeliveryPruneOptions>) => pruneDeliveries(store, { maxAgeMs: HOUR, ...options });

    before(async () => {
      database = await createTestDatabase(dialect);
      store = createStore(database.url);
      await createWebhookTables(store.db, store.dialect);
    });

    beforeEach(async () => {
      await store.db.deleteFrom(DELIVERIES_TABLE).execute();
    });

    after(async () => {
      await store?.close();
      await database?.drop();
    });

    it('deletes finished attempts older than maxAgeMs and keeps the queue whatever its age', async () => {
      const gone = [
        await insert({ status: 'success', age: 2 * HOUR }),
        await insert({ status: 'failed', age: 2 * HOUR }),
        // A retried attempt whose chain has ended (its last attempt failed): history, like the others.
        await insert({ status: 'pending', age: 3 * HOUR, chain: 'ended', attempt: 1 }),
        await insert({ status: 'failed', age: 2 * HOUR, chain: 'ended', attempt: 2 }),
      ];
      const kept = [
        await insert({ status: 'success', age: 10 * MINUTE }),
        await insert({ status: 'pending', age: 2 * HOUR, dueIn: -HOUR }),
        await insert({ status: 'pending', age: 2 * HOUR, dueIn: HOUR }),
        await insert({ status: 'pending', age: 2 * HOUR, dueIn: -MINUTE, claimed: true }),
        // A chain still retrying: its first attempt's record stays while the next one is queued.
        await insert({ status: 'pending', age: 3 * HOUR, chain: 'running', attempt: 1 }),
        await insert({ status: 'pending', age: 2 * HOUR, chain: 'running', attempt: 2, dueIn: HOUR }),
      ];
      assert.equal(await prune({}), gone.length);
      assert.deepEqual(await remaining(), new Set(kept));
    });

    it('reads only the records whose ids were made before the cutoff', async () => {
      const gone = await insert({ status: 'success', age: 2 * HOUR });
      // Back-dated past its id: the scan, bounded by the ids' time, does not reach it.
      const unread = await insert({ status: 'success', age: 2 * HOUR, idAge: 10 * MINUTE });
      assert.equal(await prune({}), 1);
      assert.deepEqual(await remaining(), new Set([unread]), `${gone} went`);
      assert.equal(await prune({ now: Date.now() + HOUR }), 1, 'once its id is past the cutoff too, it goes');
    });

    it('deletes the oldest finished attempts beyond maxCount and never an unsent one', async () => {
      const queued = [];
      for (let i = 0; i < 3; i++) queued.push(await insert({ status: 'pending', age: 50 * MINUTE - i, dueIn: 0 }));
      const finished = [];
      for (let i = 0; i < 10; i++)
        finished.push(await insert({ status: i % 3 === 0 ? 'failed' : 'success', age: 40 * MINUTE - i * 1000 }));
      // The newest 5 records are finished 6-10; the 3 queued ones are older but stay.
      assert.equal(await prune({ maxAgeMs: 24 * HOUR, maxCount: 5 }), 5);
      assert.deepEqual(await remaining(), new Set([...queued, ...finished.slice(5)]));
    });

    it('keeps only the queue with maxCount 0', async () => {
      const queued = await insert({ status: 'pending', age: HOUR, dueIn: 0 });
      const inFlight = await insert({ status: 'pending', age: HOUR, dueIn: -1000, claimed: true });
      for (let i = 0; i < 4; i++) await insert({ status: 'success', age: 1000 });
      assert.equal(await prune({ maxAgeMs: 24 * HOUR, maxCount: 0 }), 4);
      assert.deepEqual(await remaining(), new Set([queued, inFlight]));
    });

    it('deletes a large backlog in batches', async () => {
      for (let i = 0; i < 25; i++) await insert({ status: 'success', age: 2 * HOUR });
      await insert({ status: 'pending', age: 2 * HOUR, dueIn: 0 });
      assert.equal(await prune({ batchSize: 4 }), 25);
      const left = await store.db.selectFrom(DELIVERIES_TABLE).select(sql<number>`count(*)`.as('n')).executeTakeFirst();
      assert.equal(Number(left?.n), 1);
    });
  });
}
