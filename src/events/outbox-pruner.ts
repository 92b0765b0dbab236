// Keeps the outbox bounded (`retention.events`): an event goes once it is older than the retention age,
// or among the oldest beyond the retention count, but never while it is inside its resource's replay
// window (Last-Event-ID resumption needs it) nor while another node's outbox tail may not have read it.
import { sql, type ExpressionBuilder } from 'kysely';
import type { Db, DynamicSchema } from '../store/store-dialect.ts';
import { deleteInBatches, type RowCondition } from '../store/delete-in-batches.ts';
import { MIN_EVENT_AGE_MS } from '../config/config-schema.ts';
import { EVENTS_TABLE } from './outbox.ts';

export interface PruneOptions {
  /** Resources whose last `replayWindow` events are kept; events of any other resource have no window. */
  resources: readonly string[];
  replayWindow: number;
  maxAgeMs: number;
  /** Rows the outbox may hold; the oldest beyond it go (windows excepted). Absent: no count limit. */
  maxCount?: number;
  /** Rows per DELETE statement (default 1000). */
  batchSize?: number;
  /** Skip rows another node is deleting (PostgreSQL). */
  skipLocked?: boolean;
  /** Asked between batches: true ends the pass (shutdown). */
  stopped?: () => boolean;
  /** Told the rows of each batch as it commits. */
  onDeleted?: (rows: number) => void;
  now?: number;
}

type Events = ExpressionBuilder<DynamicSchema, string>;

/** Deletes what may go; returns the number of rows deleted. */
export async function pruneOutbox(db: Db, options: PruneOptions): Promise<number> {
  const now = options.now ?? Date.now();
  // The floor holds for the count too: a burst must not outrun the other nodes' tails.
  const readByAll = new Date(now - MIN_EVENT_AGE_MS).toISOString();
  const expired = new Date(now - Math.max(options.maxAgeMs, MIN_EVENT_AGE_MS)).toISOString();
  const overCount = await countBoundary(db, options.maxCount);
  const prunable = (eb: Events) => {
    if (overCount === 'all') return eb('created_at', '<', readByAll);
    const expiredRows = eb('created_at', '<', expired);
    if (overCount === undefined) return expiredRows;
    return eb.and([eb('created_at', '<', readByAll), eb.or([expiredRows, eb('seq', '<', overCount.below)])]);
  };
  const { stopped, onDeleted } = options;
  const batches = {
    table: EVENTS_TABLE,
    key: 'seq',
    batchSize: options.batchSize ?? 1000,
    skipLocked: options.skipLocked === true,
    ...(stopped ? { stopped } : {}),
    ...(onDeleted ? { onDeleted } : {}),
  };
  const run = (where: RowCondition) => deleteInBatches(db, { ...batches, where });

  let deleted = 0;
  for (const resource of options.resources) {
    if (options.stopped?.()) return deleted;
    let windowStart: unknown;
    if (options.replayWindow > 0) {
      windowStart = await nthNewestSeq(db, options.replayWindow, resource);
      // Fewer events than the window: all of them are in it.
      if (windowStart === undefined) continue;
    }
    deleted += await run((eb) => {
      const conditions = [eb('resource', '=', resource), prunable(eb)];
      if (windowStart !== undefined) conditions.push(eb('seq', '<', windowStart));
      return eb.and(conditions);
    });
  }
  if (options.stopped?.()) return deleted;
  deleted += await run((eb) =>
    options.resources.length > 0 ? eb.and([eb('resource', 'not in', [...options.resources]), prunable(eb)]) : prunable(eb),
  );
  return deleted;
}

/** Rows with a `seq` below `below` are beyond the newest `maxCount`; 'all' when every row is. */
async function countBoundary(db: Db, maxCount: number | undefined): Promise<'all' | { below: unknown } | undefined> {
  if (maxCount === undefined) return undefined;
  if (maxCount <= 0) return 'all';
  const below = await nthNewestSeq(db, maxCount);
  return below === undefined ? undefined : { below };
}

/** The seq of the n-th newest event (of one resource, or of all); undefined when there are fewer. */
async function nthNewestSeq(db: Db, n: number, resource?: string): Promise<unknown> {
  let query = db.selectFrom(EVENTS_TABLE).select('seq');
  if (resource !== undefined) query = query.where('resource', '=', resource);
  const row = await query.orderBy('seq', 'desc').limit(1).offset(n - 1).executeTakeFirst();
  return row?.seq;
}

/** Rows in the outbox (tests and diagnostics). */
export async function countOutbox(db: Db, resource?: string): Promise<number> {
  let query = db.selectFrom(EVENTS_TABLE).select(sql<number>`count(*)`.as('n'));
  if (resource !== undefined) query = query.where('resource', '=', resource);
  const row = await query.executeTakeFirst();
  return Number(row?.n ?? 0);
}
