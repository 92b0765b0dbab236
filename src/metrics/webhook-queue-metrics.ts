// Webhook delivery state, read from svc_webhook_deliveries at scrape time. The table is shared by every
// process, so these values describe the whole deployment, not this process (scrape any one node).
import { sql } from 'kysely';
import type { Store } from '../store/create-store.ts';
import { DELIVERIES_TABLE } from '../webhooks/webhook-tables.ts';
import { DELIVERY_STATUSES } from '../webhooks/delivery/webhook-delivery.ts';
import type { MetricsRegistry } from './metrics-registry.ts';

/** Records by status, over the whole table (in steps where a long statement would hold the event loop). */
function countByStatus(store: Store): Promise<Map<string, number>> {
  return store.dialect.countByValue(store.db, DELIVERIES_TABLE, 'status');
}

export function registerWebhookQueueMetrics(registry: MetricsRegistry, store: Store): void {
  const byStatus = registry.gauge({
    name: 'svc_webhook_deliveries',
    help: 'Delivery attempt records by status: pending (queued, or failed and awaiting its retry), success, failed (no retry left). Shrinks when old records are pruned.',
    labelNames: ['status'],
  });
  const depth = registry.gauge({
    name: 'svc_webhook_queue_depth',
    help: 'Attempts not sent yet, due now or scheduled for a retry, including those a worker is sending.',
  });
  const inFlight = registry.gauge({ name: 'svc_webhook_in_flight', help: 'Unsent attempts a worker holds under a live lease.' });
  const oldest = registry.gauge({
    name: 'svc_webhook_oldest_pending_seconds',
    help: 'How long the most overdue unsent attempt has been due (the delivery lag); 0 when nothing is overdue.',
  });

  registry.onCollect('webhook_deliveries', async () => {
    const { db, dialect } = store;
    const now = Date.now();
    const nowValue = dialect.encode('timestamp', new Date(now).toISOString());
    const [byStatusCounts, queue] = await Promise.all([
      countByStatus(store),
      // Only rows with due_at set: the partial index the worker claims from covers them, so this stays
      // cheap however much settled history the table holds.
      db
        .selectFrom(DELIVERIES_TABLE)
        .select([
          sql<number>`count(*)`.as('depth'),
          sql<number>`sum(case when claimed_until > ${nowValue} then 1 else 0 end)`.as('claimed'),
          sql<unknown>`min(due_at)`.as('oldest_due'),
        ])
        .where('due_at', 'is not', null)
        .executeTakeFirst(),
    ]);
    // Every known status is reported, 0 when absent, so a status that empties does not vanish from graphs.
    for (const status of DELIVERY_STATUSES) byStatus.set({ status }, 0);
    for (const [status, total] of byStatusCounts) byStatus.set({ status }, total);
    depth.set({}, Number(queue?.depth ?? 0));
    inFlight.set({}, Number(queue?.claimed ?? 0));
    const oldestDue = dialect.decode('timestamp', queue?.oldest_due) as string | null;
    oldest.set({}, oldestDue === null ? 0 : Math.max(0, now - Date.parse(oldestDue)) / 1000);
  });
}
