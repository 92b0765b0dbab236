// The catch-up after a subscription changes queues the events written after the change, and none of
// the change's own millisecond: ids order events only to the millisecond, so an event of that
// millisecond may have been written while the subscription was still disabled (and must not be sent).
// A pass that finds nothing to queue only reads.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { DeliveryCatchUp } from '../../src/webhooks/delivery/delivery-catch-up.ts';
import { DeliveryRepository } from '../../src/webhooks/delivery/delivery-repository.ts';
import type { SubscriptionCache } from '../../src/webhooks/subscriptions/subscription-cache.ts';
import type { StoredSubscription } from '../../src/webhooks/subscriptions/webhook-subscription.ts';
import { EVENTS_TABLE } from '../../src/events/outbox.ts';

/** The millisecond a UUIDv7 was made in (its first 48 bits). */
function msOf(id: string): number {
  return Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16);
}

describe('delivery catch-up bound (sqlite)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp('sqlite');
  });
  after(() => t.close());

  it('starts after the change: an event of its millisecond is not queued, one after it is', async () => {
    const editor = await t.as('editor');
    const created = await t.request({
      method: 'POST',
      url: '/v1/posts',
      auth: editor,
      payload: { title: 'while disabled' },
    });
    assert.equal(created.statusCode, 201, created.body);
    const event = await t.ctx.store.db
      .selectFrom(EVENTS_TABLE)
      .select('id')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    // The subscription comes after the write, so the write queued nothing for it.
    const hook = await t.request({
      method: 'POST',
      url: '/admin/webhooks',
      auth: t.admin,
      payload: { name: 'bound', url: 'http://127.0.0.1:9/hook', eventPattern: 'posts.*' },
    });
    assert.equal(hook.statusCode, 201, hook.body);
    // The admin view has every field the catch-up reads (id, pattern, field ids, url, updatedAt).
    const stored = (await t.ctx.webhooks.admin.get(hook.json().data.id)) as unknown as StoredSubscription;
    let subscription = { ...stored, updatedAt: new Date(msOf(String(event.id))).toISOString() };
    // Only enabledChangedSince is asked of the cache; this one answers with the subscription as changed.
    const cache = { enabledChangedSince: () => [subscription] } as unknown as SubscriptionCache;
    const catchUp = new DeliveryCatchUp({
      deliveries: new DeliveryRepository(t.ctx.store),
      subscriptions: cache,
      registry: t.ctx.registry,
      log: t.app.log,
      queued: () => {},
    });
    assert.equal(await catchUp.runOnce(), 0, 'an event of the change millisecond is not queued');
    subscription = { ...stored, updatedAt: new Date(msOf(String(event.id)) - 1).toISOString() };
    assert.equal(await catchUp.runOnce(), 1, 'an event after the change is queued');

    // With every event queued (and others written since, delivered or not matched), a pass only reads:
    // it opens no write transaction, which on SQLite would hold every other write back while it scans.
    for (const title of ['after one', 'after two'])
      assert.equal(
        (await t.request({ method: 'POST', url: '/v1/posts', auth: editor, payload: { title } })).statusCode,
        201,
      );
    const db = t.ctx.store.db;
    const transaction = db.transaction.bind(db);
    let writes = 0;
    db.transaction = () => {
      writes += 1;
      return transaction();
    };
    try {
      assert.equal(await catchUp.runOnce(), 0, 'the later events have their deliveries');
      assert.equal(writes, 0);
    } finally {
      db.transaction = transaction;
    }
  });
});
