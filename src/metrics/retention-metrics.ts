// Rows the retention job has deleted in this process, by table, read from its totals at scrape time.
import type { Store } from '../store/create-store.ts';
import { prunedRows, RETENTION_TABLES } from '../retention/pruned-rows.ts';
import type { MetricsRegistry } from './metrics-registry.ts';

export function registerRetentionMetrics(registry: MetricsRegistry, store: Store): void {
  const pruned = registry.counter<'table'>({
    name: 'svc_retention_pruned_rows_total',
    help: 'Rows deleted by retention in this process, by table (svc_events, svc_webhook_deliveries, svc_idempotency_keys).',
    labelNames: ['table'],
  });
  // Every table is shown from the start, so a rate over it has a first sample of 0.
  for (const table of RETENTION_TABLES) pruned.inc({ table }, 0);
  const seen = new Map<string, number>();
  registry.onCollect('retention', () => {
    for (const [table, total] of prunedRows(store)) {
      pruned.inc({ table }, total - (seen.get(table) ?? 0));
      seen.set(table, total);
    }
  });
}
