// One delivery attempt (docs/admin-api.md, Deliveries) as the admin API shows it.

export type DeliveryStatus = 'pending' | 'success' | 'failed';

export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'success', 'failed'];

export interface WebhookDelivery {
  id: string;
  webhookId: string;
  eventId: string;
  /** Extension: the event type, so a listing is readable without opening every payload. */
  eventType: string;
  status: DeliveryStatus;
  httpStatus: number | null;
  requestPayload: string;
  responseBody: string | null;
  responseHeaders: Record<string, string> | null;
  error: string | null;
  deliveredAt: string | null;
  attemptNumber: number;
  nextRetryAt: string | null;
  createdAt: string;
}
