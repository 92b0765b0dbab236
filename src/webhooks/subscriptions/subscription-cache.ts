// Every subscription in memory, so queueing deliveries inside a record write needs no query when no
// enabled subscription matches. Reloaded after local admin changes and periodically, to pick up other
// processes' changes.
import type { FastifyBaseLogger } from 'fastify';
import { matchEventPattern } from './match-event-pattern.ts';
import type { SubscriptionRepository } from './subscription-repository.ts';
import type { StoredSubscription } from './webhook-subscription.ts';

/** How stale another process's subscription changes may be here. */
export const SUBSCRIPTION_REFRESH_MS = 5000;

export class SubscriptionCache {
  readonly #repository: SubscriptionRepository;
  readonly #log: FastifyBaseLogger;
  #byId = new Map<string, StoredSubscription>();
  #enabled: StoredSubscription[] = [];
  /** Matches per event type; cleared on every reload. */
  #matches = new Map<string, StoredSubscription[]>();
  #timer: NodeJS.Timeout | undefined;
  #loading: Promise<void> | undefined;
  /** Reloads asked for, and the newest one a finished load covers: a load that began before a change does not count for it. */
  #requested = 0;
  #loaded = 0;

  constructor(repository: SubscriptionRepository, log: FastifyBaseLogger) {
    this.#repository = repository;
    this.#log = log;
  }

  /** Loads every subscription as it is now; concurrent callers share loads. */
  async reload(): Promise<void> {
    const wanted = ++this.#requested;
    while (this.#loaded < wanted) {
      this.#loading ??= this.#load().finally(() => {
        this.#loading = undefined;
      });
      await this.#loading;
    }
  }

  async #load(): Promise<void> {
    const covers = this.#requested;
    const all = await this.#repository.all();
    this.#byId = new Map(all.map((s) => [s.id, s]));
    this.#enabled = all.filter((s) => s.enabled);
    this.#matches = new Map();
    this.#loaded = Math.max(this.#loaded, covers);
  }

  startRefreshing(intervalMs = SUBSCRIPTION_REFRESH_MS): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => {
      this.reload().catch((error: unknown) =>
        this.#log.warn({ err: error }, 'webhook subscriptions could not be reloaded'),
      );
    }, intervalMs);
    this.#timer.unref();
  }

  stopRefreshing(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Enabled subscriptions whose pattern matches an event type. */
  matching(eventType: string): readonly StoredSubscription[] {
    let found = this.#matches.get(eventType);
    if (!found) {
      found = this.#enabled.filter((s) => matchEventPattern(s.eventPattern, eventType));
      // Event types are bounded by resources × kinds, so this map stays small.
      this.#matches.set(eventType, found);
    }
    return found;
  }

  /** Enabled subscriptions created or changed at `sinceMs` or later (by their own clock). */
  enabledChangedSince(sinceMs: number): readonly StoredSubscription[] {
    return this.#enabled.filter((s) => Date.parse(s.updatedAt) >= sinceMs);
  }

  get(id: string): StoredSubscription | undefined {
    return this.#byId.get(id);
  }
}
