// Subscriptions and deliveries as JSON:API resource objects (types `webhooks`, `webhook-deliveries`).
import type { WebhookDelivery } from './delivery/webhook-delivery.ts';
import type { WebhookSubscription } from './subscriptions/webhook-subscription.ts';

export const WEBHOOKS_PATH = '/admin/webhooks';

export function webhookObject(subscription: WebhookSubscription, secret?: string) {
  const { id, ...attributes } = subscription;
  return {
    type: 'webhooks',
    id,
    attributes: secret === undefined ? attributes : { ...attributes, secret },
    links: { self: `${WEBHOOKS_PATH}/${id}` },
  };
}

export function deliveryObject(delivery: WebhookDelivery) {
  const { id, ...attributes } = delivery;
  return {
    type: 'webhook-deliveries',
    id,
    attributes,
    relationships: { webhook: { data: { type: 'webhooks', id: delivery.webhookId } } },
    links: { self: `${WEBHOOKS_PATH}/${delivery.webhookId}/deliveries/${id}` },
  };
}

/** `links` of a page per docs/records.md: self and first always, prev/next/last when they exist. */
export function pageLinks(
  path: string,
  carried: readonly [string, string][],
  offset: number,
  limit: number,
  total: number,
): Record<string, string> {
  const link = (at: number) => {
    const parts = carried.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
    parts.push(`page[offset]=${at}`, `page[limit]=${limit}`);
    return `${path}?${parts.join('&')}`;
  };
  const links: Record<string, string> = { self: link(offset), first: link(0) };
  if (offset > 0) links.prev = link(Math.max(offset - limit, 0));
  if (offset + limit < total) links.next = link(offset + limit);
  if (total > 0) links.last = link(Math.floor((total - 1) / limit) * limit);
  return links;
}
