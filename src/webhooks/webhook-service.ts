// Webhook subscriptions and their durable delivery, as the rest of the service sees them.
export interface WebhookService {
  /** Starts the delivery worker. */
  start(): Promise<void>;
  /** Stops claiming work, finishes the attempt in hand. */
  close(): Promise<void>;
}
