// The delivery queue as /metrics reports it, read from svc_webhook_deliveries. The table is shared by
// every process, so these values describe the whole deployment, not this process.
import { sql } from 'kysely';
import type { Store } from '../../store/create-store.ts';
import { DELIVERIES_TABLE } from '../webhook-tables.ts';
import { DELIVERY_STATUSES } from './webhook-delivery.ts';

export interface DeliveryQueueState {
  /** Records by status, every known status present (0 when absent), so a status that empties does not vanish. */
  readonly byStatus: ReadonlyMap<string, number>;
  /** Attempts not sent yet, due now or scheduled for a retry. */
  readonly depth: number;
  /** Unsent attempts a worker holds under a live lease. */
  readonly inFlight: number;
  /** How long the most overdue unsent attempt has been due, in ms; 0 when nothing is overdue. */
  readonly oldestDueAgeMs: number;
}

export async function deliveryQueueState(store: Store): Promise<DeliveryQueueState> {
  const { db, dialect } = store;
  const now = Date.now();
  const nowValue = dialect.encode('timestamp', new Date(now).toISOString());
  const [byStatusCounts, queue] = await Promise.all([
    // Over the whole table, in steps where a long statement would hold the event loop.
    dialect.countByValue(db, DELIVERIES_TABLE, 'status'),
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
  const byStatus = new Map<string, number>(DELIVERY_STATUSES.map((status) => [status, 0]));
  for (const [status, total] of byStatusCounts) byStatus.set(status, total);
  const oldestDue = dialect.decode('timestamp', queue?.oldest_due) as string | null;
  return {
    byStatus,
    depth: Number(queue?.depth ?? 0),
    inFlight: Number(queue?.claimed ?? 0),
    oldestDueAgeMs: oldestDue === null ? 0 : Math.max(0, now - Date.parse(oldestDue)),
  };
}
