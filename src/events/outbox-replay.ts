// Replay for stream resumption: the events of a resource committed after a given event, if that event
// is still among the resource's last `window` events.
import type { Db } from '../store/store-dialect.ts';
import { EVENTS_TABLE } from './outbox.ts';
import type { RecordEvent } from '../model/record-event.ts';

/** A replayed event with its place in the outbox. */
export interface ReplayedEvent {
  seq: number;
  event: RecordEvent;
}

export async function replayFromOutbox(
  db: Db,
  resource: string,
  eventId: string,
  window: number,
): Promise<ReplayedEvent[] | null> {
  if (window <= 0) return null;
  const anchor = await db
    .selectFrom(EVENTS_TABLE)
    .select('seq')
    .where('id', '=', eventId)
    .where('resource', '=', resource)
    .executeTakeFirst();
  if (!anchor) return null;
  const newer = await db
    .selectFrom(EVENTS_TABLE)
    .select(['seq', 'payload'])
    .where('resource', '=', resource)
    .where('seq', '>', anchor.seq as number)
    .orderBy('seq')
    .limit(window)
    .execute();
  // The anchor is among the last `window` events only when fewer than `window` came after it.
  if (newer.length >= window) return null;
  return newer.map((row) => ({ seq: Number(row.seq), event: JSON.parse(row.payload as string) as RecordEvent }));
}

/**
 * Replay for a stream of several resources: the events of any of `resources` committed after `eventId`,
 * in outbox order, if `eventId` is one of theirs and every one of them still holds all its events since
 * (each keeps at least its last `window`; one with `window` or more since may have lost some to pruning).
 */
export async function replayAcrossFromOutbox(
  db: Db,
  resources: readonly string[],
  eventId: string,
  window: number,
): Promise<ReplayedEvent[] | null> {
  if (window <= 0 || resources.length === 0) return null;
  const anchor = await db
    .selectFrom(EVENTS_TABLE)
    .select('seq')
    .where('id', '=', eventId)
    .where('resource', 'in', [...resources])
    .executeTakeFirst();
  if (!anchor) return null;
  // If all of them together reach `window` times their number, one of them reached `window`: reading
  // that many is enough to decide, and bounds the read.
  const newer = await db
    .selectFrom(EVENTS_TABLE)
    .select(['seq', 'resource', 'payload'])
    .where('resource', 'in', [...resources])
    .where('seq', '>', anchor.seq as number)
    .orderBy('seq')
    .limit(window * resources.length)
    .execute();
  const perResource = new Map<string, number>();
  for (const row of newer) {
    const count = (perResource.get(row.resource as string) ?? 0) + 1;
    if (count >= window) return null;
    perResource.set(row.resource as string, count);
  }
  return newer.map((row) => ({ seq: Number(row.seq), event: JSON.parse(row.payload as string) as RecordEvent }));
}
