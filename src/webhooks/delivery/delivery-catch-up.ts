// Every process queues a write's deliveries from its own cache of subscriptions, which learns of a
// subscription created or changed elsewhere only when it reloads (at once when the cluster signals it,
// else within SUBSCRIPTION_REFRESH_MS). A write it makes meanwhile has no delivery for that
// subscription. So for a while after each change, every process that knows of it queues what
// matching events are missing (DeliveryRepository.catchUp): an event committed after a subscription
// was created is delivered to it, wherever it was written, however stale that process's cache was.
import type { FastifyBaseLogger } from 'fastify';
import type { ResourceRegistry } from '../../resources/resource-registry.ts';
import { uuidv7 } from '../../store/uuid-v7.ts';
import { deliveryPayloadJson } from './delivery-payload.ts';
import type { DeliveryRepository, QueuedAttempt } from './delivery-repository.ts';
import { matchEventPattern } from '../subscriptions/match-event-pattern.ts';
import { SUBSCRIPTION_REFRESH_MS, type SubscriptionCache } from '../subscriptions/subscription-cache.ts';
import type { StoredSubscription } from '../subscriptions/webhook-subscription.ts';

/** How often a process looks for missing deliveries while a subscription is young. */
export const CATCH_UP_INTERVAL_MS = 1000;
/**
 * How long after a change its catch-up goes on: every process's cache has it within
 * SUBSCRIPTION_REFRESH_MS, and the writes that began before their cache did have since committed.
 */
export const CATCH_UP_WINDOW_MS = 3 * SUBSCRIPTION_REFRESH_MS;
/**
 * Events older than the change by this much are looked at too. None: an event of a subscription's
 * disabled time must not be sent once it is enabled again, so the bound is the change itself (a write
 * that began before the change committed is not covered, nor is a node whose clock runs behind).
 */
export const CATCH_UP_LEAD_MS = 0;

export interface DeliveryCatchUpDeps {
  deliveries: DeliveryRepository;
  subscriptions: SubscriptionCache;
  registry: ResourceRegistry;
  log: FastifyBaseLogger;
  /** Called when a catch-up queued deliveries: the worker claims them. */
  queued: () => void;
}

export class DeliveryCatchUp {
  readonly #deps: DeliveryCatchUpDeps;
  readonly #intervalMs: number;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;

  constructor(deps: DeliveryCatchUpDeps, intervalMs = CATCH_UP_INTERVAL_MS) {
    this.#deps = deps;
    this.#intervalMs = intervalMs;
  }

  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => {
      // One pass at a time: a slow database does not pile them up.
      this.#running ??= this.runOnce()
        .then(() => undefined)
        .catch((error: unknown) =>
          this.#deps.log.error({ err: error }, 'queueing the deliveries of a new webhook subscription failed'),
        )
        .finally(() => {
          this.#running = undefined;
        });
    }, this.#intervalMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  /** One pass over the subscriptions changed within the window; returns how many deliveries it queued. */
  async runOnce(now = Date.now()): Promise<number> {
    let queued = 0;
    for (const subscription of this.#deps.subscriptions.enabledChangedSince(now - CATCH_UP_WINDOW_MS)) {
      // From the millisecond after the change: an event of the change's own millisecond may have been
      // written while the subscription was still disabled (and ids order only to the millisecond).
      const since = Date.parse(subscription.updatedAt) + 1 - CATCH_UP_LEAD_MS;
      const count = await this.#deps.deliveries.catchUp(subscription.id, since, (event) =>
        this.#attemptOf(subscription, event),
      );
      if (count > 0) {
        this.#deps.log.info(
          { webhookId: subscription.id, queued: count },
          'queued deliveries of events written before this process knew of the subscription',
        );
      }
      queued += count;
    }
    if (queued > 0) this.#deps.queued();
    return queued;
  }

  #attemptOf(
    subscription: StoredSubscription,
    event: Parameters<typeof deliveryPayloadJson>[0],
  ): QueuedAttempt | undefined {
    if (!matchEventPattern(subscription.eventPattern, event.type)) return undefined;
    const id = uuidv7();
    return {
      id,
      webhookId: subscription.id,
      eventId: event.id,
      eventType: event.type,
      attemptNumber: 1,
      requestPayload: deliveryPayloadJson(
        event,
        { id, attempt: 1 },
        subscription.fieldIds,
        this.#deps.registry.find(event.resource),
      ),
      targetUrl: subscription.url,
      dueAt: new Date().toISOString(),
    };
  }
}
