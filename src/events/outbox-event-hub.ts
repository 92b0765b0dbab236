// The EventHub: local commits go straight to subscribers; the outbox tail brings every process's
// commits (woken by a ChangeNotifier, or by a timer as a fallback); each event is delivered once.
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../store/store-dialect.ts';
import type { EventHub, EventListener } from './event-hub.ts';
import type { RecordEvent } from '../model/record-event.ts';
import type { ChangeNotifier } from './change-notifier.ts';
import { InProcessBus } from './in-process-bus.ts';
import { OutboxTailer } from './outbox-tailer.ts';
import { replayAcrossFromOutbox, replayFromOutbox, type ReplayedEvent } from './outbox-replay.ts';
import { pruneOutbox } from './outbox-pruner.ts';
import { announceHubClosing } from './hub-lifecycle.ts';
import { parseNotifyPayload } from '../store/commit-signal.ts';

export interface OutboxEventHubOptions {
  db: Db;
  log: FastifyBaseLogger;
  /** Events per resource kept for Last-Event-ID resumption (`stream.replayWindow`). */
  replayWindow: number;
  /** Resource names, for retention. */
  resources: () => readonly string[];
  /** Null: no cross-process signal; the fallback poll alone finds other processes' events. */
  notifier: ChangeNotifier | null;
  /** Fallback read of the outbox, for a lost signal and for gaps still open. */
  pollIntervalMs: number;
  /** How long a missing `seq` is waited for; also how long delivered ids are remembered. */
  gapGraceMs: number;
  pruneIntervalMs: number;
  /** Events outside the replay window are deleted once older than this. */
  retentionMs: number;
}

export class OutboxEventHub implements EventHub {
  readonly #options: OutboxEventHubOptions;
  readonly #bus: InProcessBus;
  readonly #tailer: OutboxTailer;
  readonly #timers: NodeJS.Timeout[] = [];
  /** The outbox `seq` of each event this hub replayed: whether the tail has passed it (notYetPublished). */
  readonly #replayedSeqs = new WeakMap<RecordEvent, number>();
  #started = false;
  #closed = false;
  /** Rows named by signals since the last look (#wake). */
  #signalled: { seq: number; id: string }[] = [];
  #passing: NodeJS.Immediate | undefined;

  constructor(options: OutboxEventHubOptions) {
    this.#options = options;
    this.#bus = new InProcessBus({
      // An event can come back through the tail until its gap closes: remember ids a little longer.
      // (Ids of this process's own events are forgotten sooner, as the tail reads them: wantsTailed.)
      dedupeRetainMs: options.gapGraceMs * 2,
      dedupeMaxSize: 200_000,
      onListenerError: (error, event) =>
        options.log.error({ err: error, eventId: event.id }, 'event subscriber failed'),
    });
    this.#tailer = new OutboxTailer(options.db, (event) => this.#bus.publish(event), {
      batchSize: 500,
      gapGraceMs: options.gapGraceMs,
      maxGaps: 10_000,
      startWindow: 1000,
      wants: (id, resource) => this.#bus.wantsTailed(id, resource),
    });
  }

  /** Events this process has just committed. */
  publishLocal(events: readonly RecordEvent[]): void {
    if (this.#closed) return;
    for (const event of events) this.#bus.publish(event);
  }

  async start(): Promise<void> {
    if (this.#started || this.#closed) return;
    this.#started = true;
    await this.#tailer.start();
    await this.#options.notifier?.start((hint) => this.#wake(hint));
    this.#every(this.#options.pollIntervalMs, () => this.#poll());
    // Not at once: a start is busy enough, and the outbox only grows by one interval meanwhile.
    this.#every(this.#options.pruneIntervalMs, () => void this.#prune());
  }

  subscribe(resource: string, listener: EventListener): () => void {
    if (this.#closed) return () => {};
    return this.#bus.subscribe(resource, listener);
  }

  async replaySince(resource: string, eventId: string): Promise<RecordEvent[] | null> {
    return this.#remember(await replayFromOutbox(this.#options.db, resource, eventId, this.#options.replayWindow));
  }

  async replayAcross(resources: readonly string[], eventId: string): Promise<RecordEvent[] | null> {
    return this.#remember(
      await replayAcrossFromOutbox(this.#options.db, resources, eventId, this.#options.replayWindow),
    );
  }

  /** Keeps each replayed event's `seq` for notYetPublished. */
  #remember(replayed: ReplayedEvent[] | null): RecordEvent[] | null {
    if (!replayed) return null;
    return replayed.map(({ seq, event }) => {
      this.#replayedSeqs.set(event, seq);
      return event;
    });
  }

  notYetPublished(resource: string, events: readonly RecordEvent[]): Set<string> {
    const pending = new Set<string>();
    const now = Date.now();
    for (const event of events) {
      // An event older than the grace was published long since (the tail gives up waiting for a seq
      // after it), or never will be. One the tail has read was published then, or found already
      // published (and forgotten by the bus); one the bus remembers was published here.
      if (now - Date.parse(event.createdAt) >= this.#options.gapGraceMs) continue;
      const seq = this.#replayedSeqs.get(event);
      if (seq !== undefined && this.#tailer.hasRead(seq)) continue;
      if (this.#bus.wants(event.id, resource)) pending.add(event.id);
    }
    return pending;
  }

  /** Live subscriptions in this process (all resources, or one). */
  subscriberCount(resource?: string): number {
    return this.#bus.subscriberCount(resource);
  }

  /** Highest outbox `seq` this process has read: events above it have not reached its subscribers from other processes yet. */
  tailPosition(): number {
    return this.#tailer.position;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // Subscribers (SSE connections) end their responses first, so the HTTP server can close.
    announceHubClosing(this);
    for (const timer of this.#timers) clearInterval(timer);
    if (this.#passing) clearImmediate(this.#passing);
    this.#bus.clear();
    await this.#tailer.stop();
    await this.#options.notifier?.close();
  }

  #every(ms: number, run: () => void): void {
    const timer = setInterval(run, ms);
    // Background work must not keep a process alive on its own.
    timer.unref();
    this.#timers.push(timer);
  }

  /**
   * A signal names the row it is for (PostgreSQL): a row this process committed and published itself
   * is not read back, which at a thousand creates a second was a read for every few creates. The
   * signal often arrives just before the commit's own answer is read, so the rows named are looked at
   * once the current I/O callbacks have run, all together, in seq order.
   */
  #wake(hint: string | undefined): void {
    const row = hint === undefined ? null : parseNotifyPayload(hint);
    if (!row) {
      this.#poll();
      return;
    }
    this.#signalled.push(row);
    this.#passing ??= setImmediate(() => this.#passSignalled());
  }

  #passSignalled(): void {
    this.#passing = undefined;
    const rows = this.#signalled.sort((a, b) => a.seq - b.seq);
    this.#signalled = [];
    let unread = false;
    for (const { seq, id } of rows) if (!this.#tailer.pass(seq, () => this.#bus.forgetDelivered(id))) unread = true;
    if (unread) this.#poll();
  }

  #poll(): void {
    this.#tailer
      .poll()
      .catch((error: unknown) => this.#options.log.warn({ err: error }, 'reading the event outbox failed'));
  }

  async #prune(): Promise<void> {
    try {
      await pruneOutbox(this.#options.db, {
        resources: this.#options.resources(),
        replayWindow: this.#options.replayWindow,
        maxAgeMs: this.#options.retentionMs,
      });
    } catch (error) {
      this.#options.log.warn({ err: error }, 'pruning the event outbox failed');
    }
  }
}
