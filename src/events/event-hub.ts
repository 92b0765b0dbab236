// Fan-out of committed events to live subscribers in this process, fed by every process's writes.
import type { RecordEvent } from '../model/record-event.ts';

export type EventListener = (event: RecordEvent) => void;

export interface EventHub {
  /** Begins receiving events (local commits and, with several processes, the others'). */
  start(): Promise<void>;
  /** Live events of one resource; returns the unsubscribe function. */
  subscribe(resource: string, listener: EventListener): () => void;
  /**
   * Events of a resource committed after `eventId`, oldest first, or null when `eventId` is unknown or
   * older than the replay window (the client must reload).
   */
  replaySince(resource: string, eventId: string): Promise<RecordEvent[] | null>;
  /**
   * Events of any of `resources` committed after `eventId` (an event of one of them), in commit order,
   * or null as for `replaySince` when any of them may have lost events since to the replay window.
   */
  replayAcross(resources: readonly string[], eventId: string): Promise<RecordEvent[] | null>;
  /**
   * Of `events` (just replayed from the outbox), the ids this process has not published yet: committed
   * but still on their way (a local write whose answer is being read, another process's write the tail
   * has not reached). Each of them will still reach this resource's subscribers.
   */
  notYetPublished(resource: string, events: readonly RecordEvent[]): Set<string>;
  close(): Promise<void>;
}
