// Webhook subscriptions and their durable delivery, as the rest of the service sees them.
import type { WebhookAdmin } from './webhook-admin.ts';

export interface WebhookService {
  /** Starts the delivery worker. */
  start(): Promise<void>;
  /** Stops claiming work, lets in-flight attempts finish (bounded) and gives unsent claims back. */
  close(): Promise<void>;
  /** Subscriptions and deliveries, as the admin API manages them. */
  readonly admin: WebhookAdmin;
}
