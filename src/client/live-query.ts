// A live query: a list kept equal to what `GET /v1/<resource>` with the same query answers, by loading
// it once and then applying the resource's stream (docs/client.md, "Live queries").
//
// The stream already applies the reader's read rules before and after each change (a record that
// becomes readable arrives as `created`, one that stops as `deleted`), so the client only has to add the
// query's own filter, order and page. The simplest approach that stays exact:
// - a change is applied here when the outcome is certain: the filter is decided on the record
//   (`local-match.ts`), the list is complete (every match fits the page) and in the default order
//   (by id, which sorts the same everywhere);
// - otherwise the list is loaded again (a "resync"): a record that enters a page, leaves a paged list,
//   or moves in an explicit order, and filters with patterns. Resyncs are coalesced (one in flight, one
//   queued), and events that arrive during one are replayed on top of its answer, so the copy converges
//   on the server's list once writes pause.
// Reconnects resume with Last-Event-ID; `reset` resyncs; `revoked` closes the stream and, unless the
// caller's `onRevoked` says 'stop', reopens it with the current credential and resyncs.
import type { Transport } from './http-call.ts';
import type { ListQuery } from './list-query.ts';
import { compareValues, matchesFilter } from './local-match.ts';
import { recordsApi } from './records-api.ts';
import type { ResourceSchema, SvcRecord } from './schema-types.ts';

type Loose = Record<string, unknown>;

/** The parts of `EventSource` a live query uses: the browser's, Node's, or the `eventsource` package's. */
export interface EventSourceLike {
  readonly readyState: number;
  addEventListener(type: string, listener: (event: { data?: string; lastEventId?: string }) => void): void;
  close(): void;
}
export type EventSourceClass = new (url: string, init?: { withCredentials?: boolean }) => EventSourceLike;

export type LiveQueryOptions<F extends object, S extends string> = Pick<
  ListQuery<F, S>,
  'filter' | 'search' | 'sort' | 'fields' | 'limit' | 'offset'
> & {
  /**
   * Called when the server ends the stream because the caller's access changed (`revoked`). Return (or
   * resolve to) 'reload' to reconnect with the client's current credential (sign in again first if
   * needed) and load the list again, or 'stop' to end the live query. Default: 'reload'.
   */
  onRevoked?: (reason: string) => 'reload' | 'stop' | Promise<'reload' | 'stop'>;
  /** Told of a failed load or a stream that cannot reconnect (401, 403, 404, 429). */
  onError?: (error: unknown) => void;
};

export interface LiveQuery<R> {
  /** The current list, in the GET's order. */
  readonly items: readonly R[];
  /** The count of every match, as the last load said and the changes since kept it. */
  readonly total: number;
  /** Resolves after the first load. */
  readonly ready: Promise<void>;
  /** Calls `listener` with the list now and after every change; returns a function that stops it. */
  subscribe(listener: (items: readonly R[]) => void): () => void;
  /** Each new state of the list, until `close()`. */
  [Symbol.asyncIterator](): AsyncIterator<readonly R[]>;
  close(): void;
}

interface StreamEvent {
  kind: 'created' | 'updated' | 'deleted';
  id: string;
  record: Loose | null;
}

const DEFAULT_PAGE = 50;
const CLOSED = 2;

export interface LiveContext {
  transport: Transport;
  eventSource: EventSourceClass | undefined;
  withCredentials: boolean;
  /** The API key for `?token=`: EventSource cannot send headers. */
  streamToken(): string | undefined;
}

export function liveQuery<S extends ResourceSchema>(
  context: LiveContext,
  resource: string,
  options: LiveQueryOptions<S['fields'], S['sortable']> = {},
): LiveQuery<SvcRecord<S['fields']>> {
  type R = SvcRecord<S['fields']>;
  const EventSourceImpl = context.eventSource ?? (globalThis as { EventSource?: EventSourceClass }).EventSource;
  if (EventSourceImpl === undefined)
    throw new TypeError("No EventSource: pass the `eventsource` package's class as createClient({ EventSource })");
  const records = recordsApi<S>(context.transport, resource);
  const filter = (options.filter ?? {}) as Loose;
  const searching = options.search !== undefined && options.search !== '';
  const sort = options.sort ?? [];
  const pageSize = options.limit ?? DEFAULT_PAGE;
  const offset = options.offset ?? 0;
  const explicitOrder = sort.length > 0;
  const sortFields = sort.map((key) => (key.startsWith('-') ? key.slice(1) : key));

  let items: R[] = [];
  let total = 0;
  let closed = false;
  let source: EventSourceLike | undefined;
  let lastEventId: string | undefined;
  let loading = false;
  let loadAgain = false;
  let pending: StreamEvent[] = [];
  const listeners = new Set<(items: readonly R[]) => void>();
  let resolveReady: () => void = () => {};
  let rejectReady: (error: unknown) => void = () => {};
  const ready = new Promise<void>((resolve, reject) => {
    resolveReady = resolve;
    rejectReady = reject;
  });
  // A caller that only subscribes learns of a failed first load through onError.
  ready.catch(() => {});

  const complete = (): boolean => offset === 0 && total === items.length && items.length < pageSize;
  const notify = (): void => {
    for (const listener of listeners) listener(items);
  };
  const fail = (error: unknown): void => {
    if (options.onError) options.onError(error);
  };
  /** The record as the GET shows it: `fields=` keeps id, the timestamps and the named fields. */
  const project = (record: Loose): R => {
    if (options.fields === undefined) return record as R;
    const shown: Loose = { id: record.id, created_at: record.created_at, updated_at: record.updated_at };
    for (const field of options.fields) if (Object.hasOwn(record, field)) shown[field] = record[field];
    return shown as R;
  };

  async function load(): Promise<void> {
    if (loading) {
      loadAgain = true;
      return;
    }
    loading = true;
    try {
      do {
        loadAgain = false;
        pending = [];
        const page = await records.list({
          ...options,
          filter: options.filter,
          search: options.search,
          sort: options.sort,
          fields: options.fields,
          limit: pageSize,
          offset,
        } as ListQuery<S['fields'], S['sortable']>);
        if (closed) return;
        items = page.data;
        total = page.total;
        // Changes that arrived while the page was on its way, on top of it (they are at least as new).
        const replay = pending;
        pending = [];
        for (const event of replay) applyEvent(event);
      } while (loadAgain && !closed);
      resolveReady();
      notify();
    } catch (error) {
      // The first load failing (a bad query, no access) is final: the promise says so.
      rejectReady(error);
      fail(error);
    } finally {
      loading = false;
    }
  }

  function resync(): void {
    void load();
  }

  function applyEvent(event: StreamEvent): void {
    const at = items.findIndex((item) => item.id === event.id);
    const present = at >= 0;
    if (event.kind === 'deleted' || event.record === null) {
      if (!present) return;
      const wasComplete = complete();
      items = items.filter((item) => item.id !== event.id);
      total -= 1;
      if (!wasComplete) resync();
      return;
    }
    // Whether words match is the database's to say (stemming, the caller's readable fields): a search
    // reloads on any change that could bring a record in or move it.
    const match = searching ? 'unknown' : matchesFilter(event.record, filter);
    if (match === 'unknown') return resync();
    if (!match) {
      if (!present) return;
      const wasComplete = complete();
      items = items.filter((item) => item.id !== event.id);
      total -= 1;
      if (!wasComplete) resync();
      return;
    }
    const record = project(event.record);
    if (present) {
      const before = items[at] as Loose;
      items = items.map((item, index) => (index === at ? record : item));
      const moved = sortFields.some(
        (field) =>
          compareValues(before[field], (record as Loose)[field]) !== 0 ||
          (before[field] === null) !== ((record as Loose)[field] === null),
      );
      if (explicitOrder && moved) resync();
      return;
    }
    // A record entered the filter: placed here only when the whole list is here and ordered by id.
    if (complete() && !explicitOrder) {
      items = [...items, record].sort((a, b) => compareValues(a.id, b.id));
      total += 1;
      return;
    }
    resync();
  }

  function onMessage(kind: StreamEvent['kind'], message: { data?: string; lastEventId?: string }): void {
    if (message.lastEventId) lastEventId = message.lastEventId;
    let data: { old: Loose | null; new: Loose | null };
    try {
      data = JSON.parse(message.data ?? '') as typeof data;
    } catch (error) {
      return fail(error);
    }
    const id = String((data.new ?? data.old)?.id ?? '');
    const event: StreamEvent = { kind, id, record: kind === 'deleted' ? null : data.new };
    if (loading) {
      pending.push(event);
      return;
    }
    applyEvent(event);
    notify();
  }

  function streamUrl(): string {
    // No `fields=` on the stream even when the query has one: an update of a field the query does not
    // show still moves `updated_at`, which the GET shows, and the filter and order may read other fields.
    const params = new URLSearchParams();
    if (lastEventId !== undefined) params.set('lastEventId', lastEventId);
    const token = context.streamToken();
    if (token !== undefined) params.set('token', token);
    const query = params.toString();
    return new URL(
      `v1/${encodeURIComponent(resource)}/stream${query === '' ? '' : `?${query}`}`,
      context.transport.baseUrl,
    ).toString();
  }

  function open(): void {
    if (closed || EventSourceImpl === undefined) return;
    const current = new EventSourceImpl(streamUrl(), context.withCredentials ? { withCredentials: true } : undefined);
    source = current;
    let loadOnOpen = true;
    current.addEventListener('open', () => {
      // The first open (and the first after a revocation) loads the list; a reconnect resumes instead.
      if (loadOnOpen) {
        loadOnOpen = false;
        resync();
      }
    });
    for (const kind of ['created', 'updated', 'deleted'] as const) {
      current.addEventListener(`${resource}.${kind}`, (message) => onMessage(kind, message));
    }
    current.addEventListener('reset', () => resync());
    current.addEventListener('revoked', (message) => {
      current.close();
      let reason = '';
      try {
        reason = String((JSON.parse(message.data ?? '{}') as { reason?: unknown }).reason ?? '');
      } catch {
        // A reason is for people; the revocation stands without one.
      }
      void Promise.resolve(options.onRevoked ? options.onRevoked(reason) : 'reload').then((next) => {
        if (next === 'stop') close();
        else open();
      }, fail);
    });
    current.addEventListener('error', () => {
      // EventSource retries by itself; CLOSED means it gave up (401, 403, 404, 429 or not an event stream).
      if (current.readyState === CLOSED && source === current && !closed)
        fail(new Error(`The ${resource} stream closed and will not reconnect`));
    });
  }

  function close(): void {
    closed = true;
    source?.close();
    // A last call wakes the async iterators, which then end.
    notify();
    listeners.clear();
  }

  open();

  return {
    get items() {
      return items;
    },
    get total() {
      return total;
    },
    ready,
    subscribe(listener) {
      listeners.add(listener);
      listener(items);
      return () => listeners.delete(listener);
    },
    [Symbol.asyncIterator]() {
      const queue: (readonly R[])[] = [];
      let wake: (() => void) | undefined;
      const stop = this.subscribe((state) => {
        queue.push(state);
        wake?.();
      });
      return {
        async next(): Promise<IteratorResult<readonly R[]>> {
          while (queue.length === 0) {
            if (closed) return { done: true, value: undefined };
            await new Promise<void>((resolve) => {
              wake = resolve;
            });
          }
          return { done: false, value: queue.shift() as readonly R[] };
        },
        async return(): Promise<IteratorResult<readonly R[]>> {
          stop();
          return { done: true, value: undefined };
        },
      };
    },
    close,
  };
}
