// Keeps the outbox bounded (`retention.events`): an event goes once it is older than the retention age,
// or among the oldest beyond the retention count, but never while it is inside its resource's replay
// window (Last-Event-ID resumption needs it) nor while another node's outbox tail may not have read it.
import { sql, type ExpressionBuilder } from 'kysely';
import type { Db, DynamicSchema } from '../store/store-dialect.ts';
import { deleteInBatches, type RowCondition } from '../store/delete-in-batches.ts';
import { nthNewestKey } from '../store/nth-newest-key.ts';
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
  const range = await seqRange(db);
  if (range === undefined) return 0;
  // The floor holds for the count too: a burst must not outrun the other nodes' tails.
  const readByAll = new Date(now - MIN_EVENT_AGE_MS).toISOString();
  const expired = new Date(now - Math.max(options.maxAgeMs, MIN_EVENT_AGE_MS)).toISOString();
  const overCount = await countBoundary(db, options.maxCount, range);
  // Events are appended as they are made, so the old ones are the lowest seqs: every statement below
  // reads that prefix of the outbox only, not the whole table, whatever its size. (An event whose
  // created_at is out of step with its seq waits for the events before it.)
  const expiredBelow = await firstSeqNotBefore(db, expired, range);
  const unreadBelow = overCount === undefined ? expiredBelow : await firstSeqNotBefore(db, readByAll, range);
  const scanBelow =
    overCount === undefined
      ? expiredBelow
      : overCount === 'all'
        ? unreadBelow
        : Math.max(expiredBelow, Math.min(Number(overCount.below), unreadBelow));
  if (scanBelow <= range.min) return 0;
  const prunable = (eb: Events) => {
    const conditions = [eb('seq', '<', scanBelow)];
    if (overCount === 'all') conditions.push(eb('created_at', '<', readByAll));
    else if (overCount === undefined) conditions.push(eb('created_at', '<', expired));
    else
      conditions.push(
        eb('created_at', '<', readByAll),
        eb.or([eb('created_at', '<', expired), eb('seq', '<', overCount.below)]),
      );
    return eb.and(conditions);
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
    options.resources.length > 0
      ? eb.and([eb('resource', 'not in', [...options.resources]), prunable(eb)])
      : prunable(eb),
  );
  return deleted;
}

interface SeqRange {
  min: number;
  max: number;
}

/** The lowest and highest seq in the outbox, or undefined when it is empty. */
async function seqRange(db: Db): Promise<SeqRange | undefined> {
  // Two lookups at the ends of the key: SQLite reads `min(seq), max(seq)` together by scanning the table.
  const end = (direction: 'asc' | 'desc') =>
    db.selectFrom(EVENTS_TABLE).select('seq').orderBy('seq', direction).limit(1).executeTakeFirst();
  const low = await end('asc');
  const high = await end('desc');
  if (low === undefined || high === undefined) return undefined;
  return { min: Number(low.seq), max: Number(high.seq) };
}

/**
 * The lowest seq whose event was made at or after `createdAt`, by bisecting the seq range with point
 * lookups (about 20 for a million events) instead of reading every row's created_at.
 */
async function firstSeqNotBefore(db: Db, createdAt: string, range: SeqRange): Promise<number> {
  let low = range.min;
  let high = range.max + 1;
  while (low < high) {
    const middle = low + Math.floor((high - low) / 2);
    const row = await db
      .selectFrom(EVENTS_TABLE)
      .select(['seq', 'created_at'])
      .where('seq', '>=', middle)
      .orderBy('seq')
      .limit(1)
      .executeTakeFirst();
    // No row in [middle, high): the boundary is below middle, as when the row there is new enough.
    if (row !== undefined && Number(row.seq) < high && String(row.created_at) < createdAt) low = Number(row.seq) + 1;
    else high = middle;
  }
  return low;
}

/** Rows with a `seq` below `below` are beyond the newest `maxCount`; 'all' when every row is. */
async function countBoundary(
  db: Db,
  maxCount: number | undefined,
  range: SeqRange,
): Promise<'all' | { below: unknown } | undefined> {
  if (maxCount === undefined) return undefined;
  if (maxCount <= 0) return 'all';
  // Seqs are never reused: a range no longer than the count cannot hold more rows than it.
  if (range.max - range.min + 1 <= maxCount) return undefined;
  const below = await nthNewestSeq(db, maxCount);
  return below === undefined ? undefined : { below };
}

/** The seq of the n-th newest event (of one resource, or of all); undefined when there are fewer. */
function nthNewestSeq(db: Db, n: number, resource?: string): Promise<unknown> {
  return nthNewestKey(db, {
    table: EVENTS_TABLE,
    key: 'seq',
    n,
    ...(resource === undefined ? {} : { where: (eb) => eb('resource', '=', resource) }),
  });
}

/** Rows in the outbox (tests and diagnostics). */
export async function countOutbox(db: Db, resource?: string): Promise<number> {
  let query = db.selectFrom(EVENTS_TABLE).select(sql<number>`count(*)`.as('n'));
  if (resource !== undefined) query = query.where('resource', '=', resource);
  const row = await query.executeTakeFirst();
  return Number(row?.n ?? 0);
}
