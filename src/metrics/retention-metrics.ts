// Rows the retention job has deleted in this process, by table, read from its totals at scrape time.
import type { MetricsRegistry } from './metrics-registry.ts';

/** The tables retention prunes, and its running totals per table (a table not pruned yet is absent). */
export interface PrunedRowsSource {
  readonly tables: readonly string[];
  totals(): ReadonlyMap<string, number>;
}

export function registerRetentionMetrics(registry: MetricsRegistry, source: PrunedRowsSource): void {
  const pruned = registry.counter<'table'>({
    name: 'svc_retention_pruned_rows_total',
    help: 'Rows deleted by retention in this process, by table (svc_events, svc_webhook_deliveries, svc_idempotency_keys).',
    labelNames: ['table'],
  });
  // Every table is shown from the start, so a rate over it has a first sample of 0.
  for (const table of source.tables) pruned.inc({ table }, 0);
  const seen = new Map<string, number>();
  registry.onCollect('retention', () => {
    for (const [table, total] of source.totals()) {
      pruned.inc({ table }, total - (seen.get(table) ?? 0));
      seen.set(table, total);
    }
  });
}
