// Runs record writes with their events: each change's event is written in the change's transaction
// (or its one statement), with the rows the hooks add, and reported to the listeners once committed,
// or as discarded when it is not.
import type { ErrorCode } from '../errors/error-catalogue.ts';
import type { Store } from '../store/create-store.ts';
import type { Db } from '../store/store-dialect.ts';
import type { TableRows } from '../store/write-statements.ts';
import { appendEvent, EVENTS_TABLE, eventRowOf } from '../events/outbox.ts';
import type { RecordEvent } from '../model/record-event.ts';
import { noteResourceWrite } from './write-generation.ts';
import { guard, NotApplied } from './driver-error-guard.ts';

/** Receives events once their transaction has committed (fan-out to streams). */
export type CommittedEventsListener = (events: RecordEvent[]) => void;

/** Where a listener's failure is reported (the app's logger). */
export interface ListenerErrorLog {
  error(details: object, message: string): void;
}

/** Receives events written in a transaction that will not commit them (rolled back, or run again). */
export type DiscardedEventsListener = (events: RecordEvent[]) => void;

/** Runs inside the change's transaction right after its event is written. */
export type EventWrittenHook = (trx: Db, event: RecordEvent) => Promise<void>;

/**
 * Rows to write with an event, in its transaction (webhook deliveries): written with the event's own
 * insert, in the same statement where the database allows, so they cost no round trip of their own.
 */
export type EventRowsHook = (event: RecordEvent) => TableRows | undefined;

type Row = Record<string, unknown>;

export class ChangeRunner {
  readonly #store: Store;
  readonly #log: ListenerErrorLog | undefined;
  readonly #listeners: CommittedEventsListener[] = [];
  readonly #discardListeners: DiscardedEventsListener[] = [];
  readonly #hooks: EventWrittenHook[] = [];
  readonly #rowHooks: EventRowsHook[] = [];

  constructor(store: Store, log: ListenerErrorLog | undefined) {
    this.#store = store;
    this.#log = log;
  }

  onCommitted(listener: CommittedEventsListener): void {
    this.#listeners.push(listener);
  }

  onDiscarded(listener: DiscardedEventsListener): void {
    this.#discardListeners.push(listener);
  }

  onEventWritten(hook: EventWrittenHook): void {
    this.#hooks.push(hook);
  }

  onEventRows(hook: EventRowsHook): void {
    this.#rowHooks.push(hook);
  }

  /** Some hook writes with each event inside its transaction (a write then needs one). */
  get hasWriteHooks(): boolean {
    return this.#hooks.length > 0;
  }

  /**
   * Writes the change's event with its hooks' rows, into `events` first: should the rows or a later
   * hook fail, the write discards the event with what its row hooks set aside (the worker's leases).
   */
  async writeEvent(trx: Db, events: RecordEvent[], event: RecordEvent): Promise<void> {
    events.push(event);
    await appendEvent(this.#store, trx, event, this.#rowsWith(event));
    for (const hook of this.#hooks) await hook(trx, event);
  }

  /**
   * Takes `event` into the write's `events` and answers its outbox row, then the rows its row hooks write
   * with it (its deliveries), for a caller that writes them later in the same transaction (a batch's
   * set-aside creates, queued-creates.ts): should the write fail, what the hooks set aside is discarded.
   */
  eventParts(events: RecordEvent[], event: RecordEvent): TableRows[] {
    events.push(event);
    return [{ table: EVENTS_TABLE, rows: [eventRowOf(event)] }, ...this.#rowsWith(event)];
  }

  /** The rows the row hooks write with `event` (its webhook deliveries). */
  #rowsWith(event: RecordEvent): TableRows[] {
    const alongside: TableRows[] = [];
    for (const hook of this.#rowHooks) {
      const rows = hook(event);
      if (rows && rows.rows.length > 0) alongside.push(rows);
    }
    return alongside;
  }

  /**
   * Runs a record write and reports its events once committed. `alone`: `work` is one statement, run
   * on the database without a transaction of its own (it commits by itself).
   */
  async run<T>(code: ErrorCode, work: (trx: Db, events: RecordEvent[]) => Promise<T>, alone = false): Promise<T> {
    const events: RecordEvent[] = [];
    const discard = () => {
      if (events.length === 0) return;
      const gone = events.splice(0);
      this.#tell(this.#discardListeners, gone, 'a listener for discarded events failed');
    };
    // Before and after: a count taken while this transaction runs is never reused after it.
    noteResourceWrite(this.#store.db);
    // The work may run again when its group is rolled back (Store.transact): a run starts with no events.
    const run = (trx: Db) => {
      discard();
      return work(trx, events);
    };
    const result = await guard(this.#store.dialect, code, () =>
      alone ? run(this.#store.db) : this.#store.transact(run),
    )
      .catch((error: unknown) => {
        discard();
        throw error;
      })
      .finally(() => noteResourceWrite(this.#store.db));
    if (events.length > 0) this.#tell(this.#listeners, events, 'a listener for committed events failed');
    return result;
  }

  /**
   * Runs the one statement (`execute`) that writes a change with `event` and the rows its hooks add
   * (`parts`: the event's row first): the rows it answers, or undefined when its conditions failed and
   * it wrote nothing.
   */
  async runOneStatement(
    code: ErrorCode,
    event: RecordEvent,
    execute: (parts: TableRows[]) => Row[] | Promise<Row[]>,
  ): Promise<Row[] | undefined> {
    try {
      return await this.run(
        code,
        async (_db, events) => {
          events.push(event);
          const rows = await execute([{ table: EVENTS_TABLE, rows: [eventRowOf(event)] }, ...this.#rowsWith(event)]);
          // Nothing was written: the event and what its hooks set aside go (run discards them on a throw).
          if (rows.length === 0) throw new NotApplied();
          return rows;
        },
        true,
      );
    } catch (error) {
      if (error instanceof NotApplied) return undefined;
      throw error;
    }
  }

  /**
   * Every listener hears of the events, whatever another one does: the write is committed (or rolled
   * back) already, so a listener's failure is logged, never the write's answer, and never keeps the
   * listeners after it (the stream hub, the webhook worker) from their share.
   */
  #tell(listeners: readonly ((events: RecordEvent[]) => void)[], events: RecordEvent[], message: string): void {
    for (const listener of listeners) {
      try {
        listener(events);
      } catch (error) {
        this.#log?.error({ err: error, eventIds: events.map((event) => event.id) }, message);
      }
    }
  }
}
