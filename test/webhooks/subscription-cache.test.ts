import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SubscriptionCache } from '../../src/webhooks/subscriptions/subscription-cache.ts';
import type { SubscriptionRepository } from '../../src/webhooks/subscriptions/subscription-repository.ts';
import type { StoredSubscription } from '../../src/webhooks/subscriptions/webhook-subscription.ts';

function subscription(id: string, eventPattern: string, enabled = true): StoredSubscription {
  const now = new Date().toISOString();
  return {
    id,
    name: id,
    url: 'https://hooks.example.com/',
    eventPattern,
    headers: null,
    enabled,
    retryConfig: null,
    fieldIds: null,
    secret: 'whsec_x',
    createdAt: now,
    updatedAt: now,
  };
}

/** A repository whose reads the test answers by hand, to interleave them with changes. */
function manualRepository() {
  const reads: ((rows: StoredSubscription[]) => void)[] = [];
  const repository = { all: () => new Promise<StoredSubscription[]>((resolve) => reads.push(resolve)) };
  // The cache only calls all(); the class's private members make a structural fake impossible otherwise.
  return { repository: repository as unknown as SubscriptionRepository, reads };
}

const silent = { warn() {} } as never;

describe('SubscriptionCache', () => {
  it('matches enabled subscriptions only', async () => {
    const { repository, reads } = manualRepository();
    const cache = new SubscriptionCache(repository, silent);
    const loaded = cache.reload();
    reads.shift()?.([subscription('a', 'posts.*'), subscription('b', '*.created'), subscription('c', '*', false)]);
    await loaded;
    assert.deepEqual(
      cache.matching('posts.created').map((s) => s.id),
      ['a', 'b'],
    );
    assert.deepEqual(
      cache.matching('categories.deleted').map((s) => s.id),
      [],
    );
    assert.equal(cache.get('c')?.enabled, false);
  });

  it('does not let a reload asked for during a load be satisfied by that older load', async () => {
    const { repository, reads } = manualRepository();
    const cache = new SubscriptionCache(repository, silent);
    const periodic = cache.reload(); // a load begins
    const afterChange = cache.reload(); // an admin change lands while it runs
    reads.shift()?.([]); // the first load read the table before the change
    await periodic;
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(reads.length, 1, 'a second load was started for the later request');
    reads.shift()?.([subscription('new', '*')]);
    await afterChange;
    assert.deepEqual(
      cache.matching('posts.created').map((s) => s.id),
      ['new'],
    );
  });
});
