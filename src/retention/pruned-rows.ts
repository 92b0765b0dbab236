// Rows retention has deleted in this process, per table. Kept per store, so the /metrics collector that
// reads that store finds them without being handed the job (as the hub's closing callbacks are found).
import type { Store } from '../store/create-store.ts';
import { EVENTS_TABLE } from '../events/outbox.ts';
import { DELIVERIES_TABLE } from '../webhooks/webhook-tables.ts';
import { IDEMPOTENCY_TABLE } from '../idempotency/idempotency-table.ts';

/** The tables retention prunes. */
export const RETENTION_TABLES: readonly string[] = [EVENTS_TABLE, DELIVERIES_TABLE, IDEMPOTENCY_TABLE];

const totals = new WeakMap<Store, Map<string, number>>();

export function recordPruned(store: Store, table: string, rows: number): void {
  let byTable = totals.get(store);
  if (!byTable) {
    byTable = new Map();
    totals.set(store, byTable);
  }
  byTable.set(table, (byTable.get(table) ?? 0) + rows);
}

/** Rows deleted so far, by table (a table not pruned yet is absent). */
export function prunedRows(store: Store): ReadonlyMap<string, number> {
  return totals.get(store) ?? new Map();
}
