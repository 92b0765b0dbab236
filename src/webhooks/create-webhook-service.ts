// Builds the webhook component: its tables, the subscription cache, the hook that queues deliveries in
// record writes, the delivery worker and the admin operations.
import type { FastifyBaseLogger } from 'fastify';
import type { SvcConfig } from '../config/config-types.ts';
import type { Store } from '../store/create-store.ts';
import type { ResourceRegistry } from '../resources/resource-registry.ts';
import type { RecordService } from '../records/record-service.ts';
import type { ClusterSignals } from '../cluster/cluster-signals.ts';
import { deliveryQueueHook } from './delivery/delivery-queue-hook.ts';
import { DeliveryRepository } from './delivery/delivery-repository.ts';
import { DeliveryCatchUp } from './delivery/delivery-catch-up.ts';
import { DeliveryWorker, type DeliveryWorkerOptions } from './delivery/delivery-worker.ts';
import { SubscriptionCache } from './subscriptions/subscription-cache.ts';
import { SubscriptionRepository } from './subscriptions/subscription-repository.ts';
import { WebhookAdmin } from './webhook-admin.ts';
import type { WebhookService } from './webhook-service.ts';
import { createWebhookTables } from './webhook-tables.ts';
import type { SecretBox } from '../tools/secret-box.ts';
import { sealWebhookSecrets } from './subscriptions/seal-webhook-secrets.ts';

const SUBSCRIPTIONS_TOPIC = 'webhooks';

/** What the webhook component is built from. */
export interface WebhookServiceDeps {
  readonly config: SvcConfig;
  readonly store: Store;
  readonly registry: ResourceRegistry;
  readonly records: RecordService;
  readonly log: FastifyBaseLogger;
  /** Tells the other nodes of subscription changes; absent in tools that build the component alone. */
  readonly signals?: ClusterSignals;
  /** Seals the signing secrets at rest (webhook-secret-box.ts). */
  readonly secrets: SecretBox;
}

export interface WebhookServiceOptions {
  /** Worker limits beyond the config's (concurrency caps, batch size, close grace). */
  worker?: Omit<DeliveryWorkerOptions, 'pollIntervalMs' | 'timeoutMs' | 'allowPrivateTargets'>;
}

export async function createWebhookService(
  deps: WebhookServiceDeps,
  options: WebhookServiceOptions = {},
): Promise<WebhookService> {
  const { config, store, registry, records, log, signals, secrets } = deps;
  await createWebhookTables(store.db, store.dialect);
  const sealing = await sealWebhookSecrets(store, secrets);
  if (sealing.sealed + sealing.resealed > 0)
    log.info(sealing, 'webhook signing secrets sealed under the current SVC_SECRET');
  const subscriptions = new SubscriptionRepository(store, secrets);
  const deliveries = new DeliveryRepository(store);
  const cache = new SubscriptionCache(subscriptions, log);
  await cache.reload();
  cache.startRefreshing();

  const worker = new DeliveryWorker(
    { deliveries, subscriptions: cache, log },
    { ...options.worker, ...config.webhooks },
  );
  records.onEventRows(deliveryQueueHook(cache, deliveries, registry, worker));
  // Writes made here before this cache had a subscription get its deliveries afterwards.
  const catchUp = new DeliveryCatchUp({ deliveries, subscriptions: cache, registry, log, queued: () => worker.wake() });
  // Deliveries queued by a local commit go out at once instead of at the next poll.
  records.onCommitted((events) => worker.holdCommitted(events.map((event) => event.id)));
  // A write run again or rolled back leased attempts that were never stored: they hold no room.
  records.onDiscarded((events) => worker.dropLeases(events.map((event) => event.id)));

  const admin = new WebhookAdmin({
    subscriptions,
    deliveries,
    cache,
    wake: () => worker.wake(),
    allowPrivateTargets: config.webhooks.allowPrivateTargets,
    changed: async () => signals?.publish(SUBSCRIPTIONS_TOPIC, {}),
  });
  signals?.on(SUBSCRIPTIONS_TOPIC, () => cache.reload());
  return {
    admin,
    start: async () => {
      worker.start();
      catchUp.start();
    },
    async close() {
      cache.stopRefreshing();
      await catchUp.stop();
      await worker.close();
    },
  };
}
