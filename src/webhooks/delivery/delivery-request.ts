// The HTTP request of one attempt: the spec's headers (6.2), the subscription's custom headers and the
// Standard Webhooks signature headers, over the stored payload.
import type { ClaimedAttempt } from './delivery-repository.ts';
import type { WebhookRequest } from './send-webhook.ts';
import { signPayload } from './sign-payload.ts';
import type { StoredSubscription } from '../subscriptions/webhook-subscription.ts';

export const USER_AGENT = 'Service-Webhooks/1.0';

export function buildDeliveryRequest(
  attempt: ClaimedAttempt,
  subscription: StoredSubscription,
  now: number,
): WebhookRequest {
  const body = attempt.requestPayload;
  const timestamp = Math.floor(now / 1000);
  return {
    url: attempt.targetUrl,
    body,
    headers: {
      // Custom headers first: validation keeps them from naming ours, and ours would win anyway.
      ...subscription.headers,
      'Content-Type': 'application/json',
      'User-Agent': USER_AGENT,
      'X-Service-Event': attempt.eventType,
      'X-Service-Event-Id': attempt.eventId,
      'X-Service-Delivery-Id': attempt.id,
      'X-Service-Delivery-Attempt': String(attempt.attemptNumber),
      // The message id is the event's, the same on every attempt, so receivers can deduplicate.
      'webhook-id': attempt.eventId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signPayload(subscription.secret, attempt.eventId, timestamp, body),
    },
  };
}
