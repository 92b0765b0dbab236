// Subscriptions and their deliveries as the admin API manages them: checked writes, the signing secret
// shown once, listings, manual redelivery and test pings, each queued for the worker like any delivery.
import { ApiError } from '../errors/api-error.ts';
import { UUID_PATTERN } from '../resources/field-types/uuid-field.ts';
import { uuidv7 } from '../store/uuid-v7.ts';
import { buildDeliveryPayload, payloadForAttempt } from './delivery/delivery-payload.ts';
import type { DeliveryFilter, DeliveryRepository } from './delivery/delivery-repository.ts';
import { pingEvent } from './delivery/ping-event.ts';
import type { SubscriptionCache } from './subscriptions/subscription-cache.ts';
import type { Page, SubscriptionRepository } from './subscriptions/subscription-repository.ts';
import type { ErrorIssue } from '../errors/api-error.ts';
import { type WebhookBody, webhookBodyProblems, webhookInputOf } from './subscriptions/webhook-input.ts';
import type { WebhookDelivery } from './delivery/webhook-delivery.ts';
import type { StoredSubscription, WebhookSubscription } from './subscriptions/webhook-subscription.ts';

export interface WebhookAdminDeps {
  subscriptions: SubscriptionRepository;
  deliveries: DeliveryRepository;
  cache: SubscriptionCache;
  /** Called after an attempt is queued outside a record write, so it is sent without waiting for a poll. */
  wake: () => void;
  allowPrivateTargets: boolean;
  /** After a subscription changed here: tells the other processes, whose caches reload at once. */
  changed?: () => Promise<void>;
}

export interface CreatedWebhook {
  subscription: WebhookSubscription;
  /** The signing secret, returned only here. */
  secret: string;
}

/** The subscription without its secret. */
function shown(stored: StoredSubscription): WebhookSubscription {
  const { secret: _secret, ...subscription } = stored;
  return subscription;
}

export class WebhookAdmin {
  readonly #deps: WebhookAdminDeps;

  constructor(deps: WebhookAdminDeps) {
    this.#deps = deps;
  }

  /** What the shape of a create or update body cannot say: a url it may send to, a pattern, headers. */
  bodyProblems(body: Partial<WebhookBody>): ErrorIssue[] {
    return webhookBodyProblems(body, { allowPrivateTargets: this.#deps.allowPrivateTargets });
  }

  /** A subscription from a body whose shape and problems are checked. */
  async create(body: WebhookBody): Promise<CreatedWebhook> {
    const input = webhookInputOf(body);
    const { name, url, eventPattern } = input;
    // The create body's schema requires these; the check narrows the types.
    if (name === undefined || url === undefined || eventPattern === undefined)
      throw new ApiError('INVALID_RESOURCE_DATA');
    const stored = await this.#deps.subscriptions.insert({ ...input, name, url, eventPattern });
    await this.#subscriptionsChanged();
    return { subscription: shown(stored), secret: stored.secret };
  }

  async #subscriptionsChanged(): Promise<void> {
    await this.#deps.cache.reload();
    await this.#deps.changed?.();
  }

  async list(page: Page): Promise<{ items: WebhookSubscription[]; total: number }> {
    const { items, total } = await this.#deps.subscriptions.page(page);
    return { items: items.map(shown), total };
  }

  async get(id: string): Promise<WebhookSubscription> {
    return shown(await this.#require(id));
  }

  async update(id: string, body: WebhookBody): Promise<WebhookSubscription> {
    await this.#require(id);
    const input = webhookInputOf(body);
    const updated = await this.#deps.subscriptions.update(id, input);
    if (!updated) throw notFound(id);
    if (input.url !== undefined) await this.#deps.deliveries.retarget(id, input.url);
    await this.#subscriptionsChanged();
    return shown(updated);
  }

  async remove(id: string): Promise<void> {
    if (!UUID_PATTERN.test(id) || !(await this.#deps.subscriptions.delete(id))) throw notFound(id);
    await this.#subscriptionsChanged();
  }

  async listDeliveries(
    webhookId: string,
    filter: DeliveryFilter,
  ): Promise<{ items: WebhookDelivery[]; total: number }> {
    await this.#require(webhookId);
    return this.#deps.deliveries.list(webhookId, filter);
  }

  async getDelivery(webhookId: string, deliveryId: string): Promise<WebhookDelivery> {
    await this.#require(webhookId);
    const delivery = UUID_PATTERN.test(deliveryId)
      ? await this.#deps.deliveries.find(webhookId, deliveryId)
      : undefined;
    if (!delivery)
      throw new ApiError('RESOURCE_NOT_FOUND', `No delivery with id '${deliveryId}' for webhook '${webhookId}'`);
    return delivery;
  }

  /** Sends a recorded delivery's event again, as a new attempt record. */
  async redeliver(webhookId: string, deliveryId: string): Promise<WebhookDelivery> {
    const subscription = await this.#require(webhookId);
    const original = await this.getDelivery(webhookId, deliveryId);
    requireEnabled(subscription);
    const { deliveries } = this.#deps;
    if (await deliveries.hasUnsent(webhookId, original.eventId)) {
      throw new ApiError('CONFLICT', 'An attempt of this event is already queued for this webhook');
    }
    const id = uuidv7();
    const attempt = (await deliveries.lastAttemptNumber(webhookId, original.eventId)) + 1;
    await deliveries.queue([
      {
        id,
        webhookId,
        eventId: original.eventId,
        eventType: original.eventType,
        attemptNumber: attempt,
        requestPayload: payloadForAttempt(original.requestPayload, { id, attempt }),
        // The current url: an admin who fixed it wants the redelivery there.
        targetUrl: subscription.url,
        dueAt: new Date().toISOString(),
      },
    ]);
    this.#deps.wake();
    return this.getDelivery(webhookId, id);
  }

  /** Queues a `webhook.ping` event for one subscription, delivered like any other. */
  async sendTest(webhookId: string, context: { requestId?: string }): Promise<WebhookDelivery> {
    const subscription = await this.#require(webhookId);
    requireEnabled(subscription);
    const event = pingEvent(subscription, context.requestId);
    const id = uuidv7();
    const { deliveries } = this.#deps;
    await deliveries.queue([
      {
        id,
        webhookId,
        eventId: event.id,
        eventType: event.type,
        attemptNumber: 1,
        requestPayload: JSON.stringify(
          buildDeliveryPayload(event, { id, attempt: 1 }, subscription.fieldIds, undefined),
        ),
        targetUrl: subscription.url,
        dueAt: event.createdAt,
      },
    ]);
    this.#deps.wake();
    return this.getDelivery(webhookId, id);
  }

  async #require(id: string): Promise<StoredSubscription> {
    const found = UUID_PATTERN.test(id) ? await this.#deps.subscriptions.find(id) : undefined;
    if (!found) throw notFound(id);
    return found;
  }
}

function notFound(id: string): ApiError {
  return new ApiError('RESOURCE_NOT_FOUND', `No webhook with id '${id}'`);
}

function requireEnabled(subscription: StoredSubscription): void {
  if (!subscription.enabled) throw new ApiError('CONFLICT', 'The webhook is disabled; enable it before sending to it');
}
