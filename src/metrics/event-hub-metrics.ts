// Streams and the outbox as this process sees them: live SSE connections per resource, and how far its
// outbox reader is behind the events other processes committed.
import { sql } from 'kysely';
import type { Store } from '../store/create-store.ts';
import type { EventHub } from '../events/event-hub.ts';
import { OutboxEventHub } from '../events/outbox-event-hub.ts';
import { EVENTS_TABLE } from '../events/outbox.ts';
import type { MetricsRegistry } from './metrics-registry.ts';

export function registerEventHubMetrics(registry: MetricsRegistry, hub: EventHub, store: Store, resources: () => readonly string[]): void {
  const connections = registry.gauge({
    name: 'svc_stream_connections',
    help: 'Open stream (SSE) connections in this process, by resource.',
    labelNames: ['resource'],
  });
  const lag = registry.gauge({
    name: 'svc_outbox_lag_seconds',
    help: "Age of the oldest committed event this process's outbox reader has not read yet; 0 when caught up. Bounds how late another process's write reaches this process's streams.",
  });

  // Only the outbox hub counts its subscribers and knows its read position; another hub reports nothing.
  if (!(hub instanceof OutboxEventHub)) return;
  registry.onCollect('event_hub', async () => {
    // Every stream connection is one subscription to its resource's events.
    connections.reset();
    for (const resource of resources()) connections.set({ resource }, hub.subscriberCount(resource));
    const row = await store.db
      .selectFrom(EVENTS_TABLE)
      .select(sql<string | null>`min(created_at)`.as('oldest'))
      .where('seq', '>', hub.tailPosition())
      .executeTakeFirst();
    const oldest = row?.oldest ?? null;
    lag.set({}, oldest === null ? 0 : Math.max(0, Date.now() - Date.parse(oldest)) / 1000);
  });
}
