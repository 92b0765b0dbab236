// Keeps svc_webhook_deliveries bounded (`retention.deliveries`): records of finished attempts go once
// older than the retention age, or among the oldest beyond the retention count. The table is also the
// durable queue, so an attempt not sent yet (`due_at` set) or held by a worker is never touched.
import type { ExpressionBuilder } from 'kysely';
import type { Store } from '../../store/create-store.ts';
import type { Db, DynamicSchema } from '../../store/store-dialect.ts';
import { deleteInBatches } from '../../store/delete-in-batches.ts';
import { nthNewestKey } from '../../store/nth-newest-key.ts';
import { uuidv7TimeFloor } from '../../store/uuid-v7.ts';
import { DELIVERIES_TABLE } from '../webhook-tables.ts';

export interface DeliveryPruneOptions {
  maxAgeMs: number;
  /** Records the table may hold; the oldest finished ones beyond it go. Absent: no count limit. */
  maxCount?: number;
  batchSize?: number;
  stopped?: () => boolean;
  /** Told the rows of each batch as it commits. */
  onDeleted?: (rows: number) => void;
  now?: number;
}

type Deliveries = ExpressionBuilder<DynamicSchema, string>;

/**
 * A finished attempt: sent, settled and released. `success` and `failed` end their event's delivery; a
 * retried attempt stays `pending` (docs/webhooks.md) while its successor is queued in the same transaction, so
 * it is finished once no attempt of the same event to the same subscription is still unsent.
 */
function finished(eb: Deliveries) {
  const unsentSibling = eb
    .selectFrom(`${DELIVERIES_TABLE} as later`)
    .select('later.id')
    .whereRef('later.webhook_id', '=', `${DELIVERIES_TABLE}.webhook_id`)
    .whereRef('later.event_id', '=', `${DELIVERIES_TABLE}.event_id`)
    .where('later.due_at', 'is not', null);
  return eb.and([
    eb('due_at', 'is', null),
    eb('claimed_until', 'is', null),
    eb.or([
      eb('status', 'in', ['success', 'failed']),
      eb.and([eb('status', '=', 'pending'), eb.not(eb.exists(unsentSibling))]),
    ]),
  ]);
}

/** Deletes what may go; returns the number of rows deleted. */
export async function pruneDeliveries(store: Store, options: DeliveryPruneOptions): Promise<number> {
  const { db, dialect } = store;
  const cutoffMs = (options.now ?? Date.now()) - options.maxAgeMs;
  const cutoff = dialect.encode('timestamp', new Date(cutoffMs).toISOString());
  const overCount = await countBoundary(db, options.maxCount);
  // An attempt's id (UUIDv7) is made just before its created_at, on the same clock: a record older than
  // the cutoff has an id below the cutoff's. Bounding the key so, each batch reads the old records only,
  // not every record in the table, whatever its size.
  const expiredBelow = uuidv7TimeFloor(cutoffMs);
  const scanBelow =
    overCount === 'all'
      ? undefined
      : overCount === undefined
        ? expiredBelow
        : maxText(expiredBelow, String(overCount.below));
  return deleteInBatches(db, {
    table: DELIVERIES_TABLE,
    // UUIDv7: the key's order is the order the attempts were queued in, and its index serves the batches.
    key: 'id',
    batchSize: options.batchSize ?? 1000,
    skipLocked: dialect.supportsSkipLocked,
    ...(options.stopped ? { stopped: options.stopped } : {}),
    ...(options.onDeleted ? { onDeleted: options.onDeleted } : {}),
    where: (eb) => {
      const expired = eb('created_at', '<', cutoff);
      const old =
        overCount === 'all'
          ? undefined
          : overCount === undefined
            ? expired
            : eb.or([expired, eb('id', '<', overCount.below)]);
      if (old === undefined) return finished(eb);
      return eb.and([eb('id', '<', scanBelow), finished(eb), old]);
    },
  });
}

function maxText(a: string, b: string): string {
  return a > b ? a : b;
}

/** Records with an id below `below` are beyond the newest `maxCount`; 'all' when every record is. */
async function countBoundary(db: Db, maxCount: number | undefined): Promise<'all' | { below: unknown } | undefined> {
  if (maxCount === undefined) return undefined;
  if (maxCount <= 0) return 'all';
  const below = await nthNewestKey(db, { table: DELIVERIES_TABLE, key: 'id', n: maxCount });
  return below === undefined ? undefined : { below };
}
