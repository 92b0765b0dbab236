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

/** The raw HTTP/1.1 request each client sends for its stream. */
export function streamRequest(url: URL, authorization: string): string {
  return `GET /v1/posts/stream?events=created HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: ${authorization}\r\nAccept: text/event-stream\r\n\r\n`;
}
