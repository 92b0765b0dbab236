// Streams and the outbox as this process sees them: live SSE connections per resource, and how far its
// outbox reader is behind the events other processes committed. The hub is seen through a narrow probe,
// so metrics/ knows nothing of how events are stored.
import type { MetricsRegistry } from './metrics-registry.ts';

/** What the outbox reader tells about itself (events/outbox-reader-probe.ts builds one). */
export interface OutboxReaderProbe {
  /** Stream subscriptions to one resource's events in this process. */
  subscriberCount(resource: string): number;
  /** When the oldest committed event this process has not read yet was created; null when caught up. */
  oldestUnreadAt(): Promise<string | null>;
}

/** A null probe (a hub that does not read an outbox) registers the gauges and reports nothing in them. */
export function registerEventHubMetrics(
  registry: MetricsRegistry,
  probe: OutboxReaderProbe | null,
  resources: () => readonly string[],
): void {
  const connections = registry.gauge({
    name: 'svc_stream_connections',
    help: 'Open stream (SSE) connections in this process, by resource.',
    labelNames: ['resource'],
  });
  const lag = registry.gauge({
    name: 'svc_outbox_lag_seconds',
    help: "Age of the oldest committed event this process's outbox reader has not read yet; 0 when caught up. Bounds how late another process's write reaches this process's streams.",
  });

  if (!probe) return;
  registry.onCollect('event_hub', async () => {
    // Every stream connection is one subscription to its resource's events.
    connections.reset();
    for (const resource of resources()) connections.set({ resource }, probe.subscriberCount(resource));
    const oldest = await probe.oldestUnreadAt();
    lag.set({}, oldest === null ? 0 : Math.max(0, Date.now() - Date.parse(oldest)) / 1000);
  });
}
