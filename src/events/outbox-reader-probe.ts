// What /metrics asks of the event hub: its subscribers per resource and how far its outbox reader lags.
import { sql } from 'kysely';
import type { Db } from '../store/store-dialect.ts';
import type { EventHub } from './event-hub.ts';
import { OutboxEventHub } from './outbox-event-hub.ts';
import { EVENTS_TABLE } from './outbox.ts';

/** Null for a hub that reads no outbox: only the outbox hub counts its subscribers and knows its read position. */
export function outboxReaderProbe(
  hub: EventHub,
  db: Db,
): { subscriberCount(resource: string): number; oldestUnreadAt(): Promise<string | null> } | null {
  if (!(hub instanceof OutboxEventHub)) return null;
  return {
    subscriberCount: (resource) => hub.subscriberCount(resource),
    async oldestUnreadAt() {
      const row = await db
        .selectFrom(EVENTS_TABLE)
        .select(sql<string | null>`min(created_at)`.as('oldest'))
        .where('seq', '>', hub.tailPosition())
        .executeTakeFirst();
      return row?.oldest ?? null;
    },
  };
}
