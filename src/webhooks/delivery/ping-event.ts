// The event a test delivery carries (POST /admin/webhooks/:id/test). Its kind, `ping`, is no record
// event kind, so a receiver can tell it from real changes; it bypasses pattern matching.
import type { RecordEvent } from '../../model/record-event.ts';
import { uuidv7 } from '../../store/uuid-v7.ts';
import type { WebhookSubscription } from '../subscriptions/webhook-subscription.ts';

export const PING_EVENT_TYPE = 'webhook.ping';

export function pingEvent(subscription: WebhookSubscription, requestId: string | undefined): RecordEvent {
  return {
    id: uuidv7(),
    type: PING_EVENT_TYPE,
    // RecordEvent's kinds are the record ones; the payload shows only `type`, which says `ping`.
    kind: 'created',
    resource: 'webhook',
    resourceId: subscription.id,
    createdAt: new Date().toISOString(),
    data: {
      old: null,
      new: {
        id: subscription.id,
        name: subscription.name,
        url: subscription.url,
        eventPattern: subscription.eventPattern,
      },
      changes: { added: [], updated: [], removed: [] },
    },
    sessionVariables: { userId: null, role: 'admin' },
    traceContext: requestId ? { requestId } : {},
  };
}
