// Webhook delivery state, read at scrape time through the callback it is given. The deliveries table is
// shared by every process, so these values describe the whole deployment, not this process (scrape any one node).
import type { MetricsRegistry } from './metrics-registry.ts';

/** The queue as webhooks/delivery/delivery-queue-state.ts reads it. */
export interface DeliveryQueueReading {
  /** Every known status present (0 when absent), so a status that empties does not vanish from graphs. */
  readonly byStatus: ReadonlyMap<string, number>;
  readonly depth: number;
  readonly inFlight: number;
  readonly oldestDueAgeMs: number;
}

export function registerWebhookQueueMetrics(
  registry: MetricsRegistry,
  readQueue: () => Promise<DeliveryQueueReading>,
): void {
  const byStatus = registry.gauge({
    name: 'svc_webhook_deliveries',
    help: 'Delivery attempt records by status: pending (queued, or failed and awaiting its retry), success, failed (no retry left). Shrinks when old records are pruned.',
    labelNames: ['status'],
  });
  const depth = registry.gauge({
    name: 'svc_webhook_queue_depth',
    help: 'Attempts not sent yet, due now or scheduled for a retry, including those a worker is sending.',
  });
  const inFlight = registry.gauge({
    name: 'svc_webhook_in_flight',
    help: 'Unsent attempts a worker holds under a live lease.',
  });
  const oldest = registry.gauge({
    name: 'svc_webhook_oldest_pending_seconds',
    help: 'How long the most overdue unsent attempt has been due (the delivery lag); 0 when nothing is overdue.',
  });

  registry.onCollect('webhook_deliveries', async () => {
    const queue = await readQueue();
    for (const [status, total] of queue.byStatus) byStatus.set({ status }, total);
    depth.set({}, queue.depth);
    inFlight.set({}, queue.inFlight);
    oldest.set({}, queue.oldestDueAgeMs / 1000);
  });
}
