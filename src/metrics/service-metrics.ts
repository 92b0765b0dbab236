// The service's metric set: request counts and latency, rate-limit rejections, streams, outbox, webhook
// queue, retention and process health. Request metrics are fed by HTTP hooks; the rest is collected at scrape time.
import type { Counter } from './counter.ts';
import type { Histogram } from './histogram.ts';
import { MetricsRegistry, type CollectorFailure } from './metrics-registry.ts';
import { registerProcessMetrics } from './process-metrics.ts';
import { registerWebhookQueueMetrics, type DeliveryQueueReading } from './webhook-queue-metrics.ts';
import { registerEventHubMetrics, type OutboxReaderProbe } from './event-hub-metrics.ts';
import { registerRetentionMetrics, type PrunedRowsSource } from './retention-metrics.ts';
import { registerStreamFlushMetrics, type FlushSource } from './stream-flush-metrics.ts';
import { SERVICE_VERSION } from './service-version.ts';

/**
 * What the collectors read, each through a callback or a narrow interface so that metrics/ imports none
 * of the parts it measures (runtime.ts wires them).
 */
export interface ServiceMetricsDeps {
  /** Null when the event hub reads no outbox: its gauges are then left empty. */
  outboxReader: OutboxReaderProbe | null;
  deliveryQueue: () => Promise<DeliveryQueueReading>;
  prunedRows: PrunedRowsSource;
  streamFlushes: FlushSource;
  /** Resource names, for the per-resource stream gauge. */
  resources: () => readonly string[];
  version?: string;
}

export interface ServiceMetrics {
  readonly registry: MetricsRegistry;
  /** By route pattern (never the raw path, which would make a series per id) and status. */
  readonly requests: Counter<'method' | 'route' | 'status'>;
  readonly requestDuration: Histogram<'method' | 'route'>;
  /** Requests refused by a key's rate limit (RATE_LIMITED) or quota (USAGE_EXCEEDED). */
  readonly rateLimitRejections: Counter<'code'>;
  /** Runs the collectors and renders everything; failed collectors are counted and returned. */
  scrape(): Promise<{ text: string; failures: CollectorFailure[] }>;
  /** Stops the event-loop monitor and the stream flush listener. */
  close(): void;
}

export function createServiceMetrics(deps: ServiceMetricsDeps): ServiceMetrics {
  const registry = new MetricsRegistry();
  registry
    .gauge<'version'>({
      name: 'svc_build_info',
      help: 'Always 1; the label says which version of svc runs.',
      labelNames: ['version'],
    })
    .set({ version: deps.version ?? SERVICE_VERSION }, 1);
  const requests = registry.counter<'method' | 'route' | 'status'>({
    name: 'svc_http_requests_total',
    help: "HTTP requests answered, by method, route pattern ('unmatched' when no route matched) and status.",
    labelNames: ['method', 'route', 'status'],
  });
  const requestDuration = registry.histogram<'method' | 'route'>({
    name: 'svc_http_request_duration_seconds',
    help: 'Time from receiving a request to the end of its response, by method and route pattern. Streams count their whole connection.',
    labelNames: ['method', 'route'],
  });
  const rateLimitRejections = registry.counter<'code'>({
    name: 'svc_rate_limit_rejections_total',
    help: 'Requests refused with 429, by error code: RATE_LIMITED (window full) or USAGE_EXCEEDED (quota used up).',
    labelNames: ['code'],
  });
  const collectorFailures = registry.counter<'collector'>({
    name: 'svc_metrics_collector_failures_total',
    help: 'Scrapes in which a collector failed (its gauges kept their previous values), by collector.',
    labelNames: ['collector'],
  });
  registerEventHubMetrics(registry, deps.outboxReader, deps.resources);
  registerWebhookQueueMetrics(registry, deps.deliveryQueue);
  registerRetentionMetrics(registry, deps.prunedRows);
  const stopProcessMetrics = registerProcessMetrics(registry);
  const stopFlushMetrics = registerStreamFlushMetrics(registry, deps.streamFlushes);

  return {
    registry,
    requests,
    requestDuration,
    rateLimitRejections,
    async scrape() {
      const failures = await registry.collect();
      for (const failure of failures) collectorFailures.inc({ collector: failure.collector });
      return { text: registry.render(), failures };
    },
    close() {
      stopProcessMetrics();
      stopFlushMetrics();
    },
  };
}
