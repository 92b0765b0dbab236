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
