// Delivers events to this process's subscribers of a resource, each event once (deduplicated by id).
import type { EventListener } from './event-hub.ts';
import type { RecordEvent } from '../model/record-event.ts';
import { RecentIds } from './recent-ids.ts';

export interface InProcessBusOptions {
  /** How long an id is remembered: longer than an event can take to come back through the outbox tail. */
  dedupeRetainMs: number;
  dedupeMaxSize: number;
  /** Reports a subscriber that threw; delivery to the others goes on. */
  onListenerError: (error: unknown, event: RecordEvent) => void;
}

export class InProcessBus {
  readonly #listeners = new Map<string, Set<EventListener>>();
  readonly #delivered: RecentIds;
  readonly #onListenerError: InProcessBusOptions['onListenerError'];

  constructor(options: InProcessBusOptions) {
    this.#delivered = new RecentIds({ retainMs: options.dedupeRetainMs, maxSize: options.dedupeMaxSize });
    this.#onListenerError = options.onListenerError;
  }

  subscribe(resource: string, listener: EventListener): () => void {
    let set = this.#listeners.get(resource);
    if (!set) {
      set = new Set();
      this.#listeners.set(resource, set);
    }
    // A wrapper makes each subscription distinct even when one function subscribes twice.
    const entry: EventListener = (event) => listener(event);
    set.add(entry);
    return () => {
      const current = this.#listeners.get(resource);
      if (!current?.delete(entry)) return;
      if (current.size === 0) this.#listeners.delete(resource);
    };
  }

  /**
   * Whether an event with this id, published now, would reach a subscriber: someone listens to its
   * resource and it was not delivered before. Lets the outbox tail skip parsing what this process
   * committed and published itself, or what no one here listens to.
   */
  wants(id: string, resource: string): boolean {
    return this.#listeners.has(resource) && !this.#delivered.has(id);
  }

  /**
   * `wants` for the outbox tail, which reads each event once: an id delivered before is forgotten as
   * the tail reads it, since nothing will publish it again. What this process committed and published
   * itself is then remembered only until the tail catches up with it, not for the whole retention
   * (at 10,000 writes/s that was 200,000 ids, ~30 MB).
   */
  wantsTailed(id: string, resource: string): boolean {
    if (this.#delivered.delete(id)) return false;
    return this.#listeners.has(resource);
  }

  /**
   * Forgets a delivered id, as wantsTailed does, for an event the tail passes without reading it;
   * false when the id was not delivered here (not yet, or it is another process's).
   */
  forgetDelivered(id: string): boolean {
    return this.#delivered.delete(id);
  }

  /** Delivers `event` unless it was delivered before; returns whether it was new. */
  publish(event: RecordEvent): boolean {
    if (!this.#delivered.add(event.id)) return false;
    const set = this.#listeners.get(event.resource);
    if (!set) return true;
    // A listener may unsubscribe (or disconnect another) while we iterate: walk a copy.
    for (const listener of [...set]) {
      try {
        listener(event);
      } catch (error) {
        this.#onListenerError(error, event);
      }
    }
    return true;
  }

  subscriberCount(resource?: string): number {
    if (resource !== undefined) return this.#listeners.get(resource)?.size ?? 0;
    let total = 0;
    for (const set of this.#listeners.values()) total += set.size;
    return total;
  }

  clear(): void {
    this.#listeners.clear();
  }
}
