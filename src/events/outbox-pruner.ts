// Keeps the outbox bounded: an event is deleted once it is outside its resource's replay window AND
// older than the retention age (the age keeps a burst replayable for a while and leaves other readers time).
import { sql } from 'kysely';
import type { Db } from '../store/store-dialect.ts';
import { EVENTS_TABLE } from './outbox.ts';

export interface PruneOptions {
  /** Resources whose last `replayWindow` events are kept; events of any other resource go by age alone. */
  resources: readonly string[];
  replayWindow: number;
  maxAgeMs: number;
  now?: number;
}

/** Deletes what may go; returns the number of rows deleted. */
export async function pruneOutbox(db: Db, options: PruneOptions): Promise<number> {
  const cutoff = new Date((options.now ?? Date.now()) - options.maxAgeMs).toISOString();
  let deleted = 0;
  for (const resource of options.resources) {
    let query = db.deleteFrom(EVENTS_TABLE).where('resource', '=', resource).where('created_at', '<', cutoff);
    if (options.replayWindow > 0) {
      // The seq of the oldest event still inside the window; with fewer events than the window, null, and
      // `seq < null` deletes nothing.
      const windowStart = db
        .selectFrom(EVENTS_TABLE)
        .select('seq')
        .where('resource', '=', resource)
        .orderBy('seq', 'desc')
        .limit(1)
        .offset(options.replayWindow - 1);
      query = query.where('seq', '<', windowStart);
    }
    deleted += Number((await query.executeTakeFirst()).numDeletedRows);
  }
  let others = db.deleteFrom(EVENTS_TABLE).where('created_at', '<', cutoff);
  if (options.resources.length > 0) others = others.where('resource', 'not in', [...options.resources]);
  deleted += Number((await others.executeTakeFirst()).numDeletedRows);
  return deleted;
}

/** Rows in the outbox (tests and diagnostics). */
export async function countOutbox(db: Db, resource?: string): Promise<number> {
  let query = db.selectFrom(EVENTS_TABLE).select(sql<number>`count(*)`.as('n'));
  if (resource !== undefined) query = query.where('resource', '=', resource);
  const row = await query.executeTakeFirst();
  return Number(row?.n ?? 0);
}
