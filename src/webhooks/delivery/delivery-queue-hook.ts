// Queues deliveries inside the record write that produced the event, so a committed change always has
// its deliveries and a rolled-back one never does: their rows are written with the event's (on
// PostgreSQL in the same statement). The cache answers "who matches" without a query. Where the
// worker has room, each is written already leased to it, and sent after the commit without a claim.
import type { EventRowsHook } from '../../records/record-service.ts';
import type { ResourceRegistry } from '../../resources/resource-registry.ts';
import { uuidv7 } from '../../store/uuid-v7.ts';
import { deliveryPayloadJson } from './delivery-payload.ts';
import { targetHostOf, type DeliveryRepository, type QueuedAttempt } from './delivery-repository.ts';
import type { DeliveryWorker } from './delivery-worker.ts';
import type { SubscriptionCache } from '../subscriptions/subscription-cache.ts';

export function deliveryQueueHook(
  subscriptions: SubscriptionCache,
  deliveries: DeliveryRepository,
  registry: ResourceRegistry,
  worker: Pick<DeliveryWorker, 'leaseQueued'>,
): EventRowsHook {
  return (event) => {
    const matching = subscriptions.matching(event.type);
    if (matching.length === 0) return undefined;
    const resource = registry.find(event.resource);
    const dueAt = new Date().toISOString();
    return deliveries.rowsOf(
      matching.map((subscription): QueuedAttempt => {
        const id = uuidv7();
        const requestPayload = deliveryPayloadJson(event, { id, attempt: 1 }, subscription.fieldIds, resource);
        // One object literal, its lease filled in after: no spreads, for every delivery of every write.
        const attempt: QueuedAttempt = {
          id,
          webhookId: subscription.id,
          eventId: event.id,
          eventType: event.type,
          attemptNumber: 1,
          requestPayload,
          targetUrl: subscription.url,
          dueAt,
          claim: undefined,
        };
        const leased = worker.leaseQueued(attempt, targetHostOf(subscription.url));
        if (leased) attempt.claim = { token: leased.claimToken, until: leased.claimedUntil };
        return attempt;
      }),
    );
  };
}
