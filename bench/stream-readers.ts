// The fan-out measurement's stream clients, behind one interface: read natively (bench/sse-reader.c,
// the default wherever a C compiler builds it) or by Node in the driver's own process (the fallback).
// Either one times each bench post's event as it is read, on the monotonic clock of monotonicMs().

/** Milliseconds on CLOCK_MONOTONIC: the clock of process.hrtime and of the native reader. */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

export interface ReaderCounts {
  /** Warm-up posts' events read, over all clients. */
  warm: number;
  /** Timed posts' events read, over all clients. */
  timed: number;
  /** Streams whose connection closed after their preamble (svc drops a client that does not keep up). */
  closed: number;
  /** CPU time of a separate reader process, ms (0 when the readers run in the driver's own process). */
  cpuMs: number;
}

export interface StreamReaders {
  readonly kind: 'native' | 'node';
  /** Clients that read their stream's preamble. */
  readonly connected: number;
  counts(): Promise<ReaderCounts>;
  /** The timed events read so far: pairs of (post seq, monotonicMs when read). */
  timedEvents(): Promise<Float64Array>;
  close(): void;
}

/** Where a client's request template holds the client's number (0 to N-1), in the filtered run. */
export const CLIENT_NUMBER = '@CLIENT@';

/**
 * Each client's `_filter` in the filtered run: distinct per client (the number is a value in it), so no
 * two streams share a view, yet every bench post matches it, so every client receives every event and
 * the run times the same deliveries as the unfiltered one.
 */
const CLIENT_FILTER = `{"_and":[{"status":{"eq":"published"}},{"title":{"neq":"not-for-${CLIENT_NUMBER}"}}]}`;

/**
 * The raw HTTP/1.1 request each client sends for its stream; with `filtered`, a template in which each
 * client puts its number for CLIENT_NUMBER (see requestOf).
 */
export function streamRequest(url: URL, authorization: string, filtered = false): string {
  const filter = filtered
    ? `&_filter=${encodeURIComponent(CLIENT_FILTER).replace(encodeURIComponent(CLIENT_NUMBER), CLIENT_NUMBER)}`
    : '';
  return `GET /v1/posts/stream?events=created${filter} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: ${authorization}\r\nAccept: text/event-stream\r\n\r\n`;
}

/** Client `index`'s request from the template (the same request for all when it has no number). */
export function requestOf(template: string, index: number): string {
  return template.replace(CLIENT_NUMBER, String(index));
}
