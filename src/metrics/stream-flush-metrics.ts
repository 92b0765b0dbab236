// What fanning stream events out costs this process: each flush writes the queued frames to every live
// connection, one socket write each, and its duration is a stream client's delay beyond the flush
// interval. With 1,000 clients the writes, not the events, are the work, so both are counted. The
// flush before a client goes live and the last one at shutdown bypass the scheduler and are not counted:
// one per join or per stream, never the steady fan-out.
import type { MetricsRegistry } from './metrics-registry.ts';

/** From one client's write (well under a millisecond) to a flush that holds the loop for a second. */
export const FLUSH_SECONDS_BUCKETS: readonly number[] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];

/** Where flushes are announced (stream/flush-scheduler.ts): each one's duration and connection writes. */
export interface FlushSource {
  onFlush(listener: (flush: { durationMs: number; writes: number }) => void): () => void;
}

/** Registers the flush metrics; returns the function that stops listening (on app close). */
export function registerStreamFlushMetrics(registry: MetricsRegistry, scheduler: FlushSource): () => void {
  const duration = registry.histogram({
    name: 'svc_stream_flush_seconds',
    help: 'Time each scheduled flush of queued stream (SSE) frames took to write them to every live connection in this process. A frame waits for the flush interval plus up to this.',
    buckets: FLUSH_SECONDS_BUCKETS,
  });
  const writes = registry.counter({
    name: 'svc_stream_flush_writes_total',
    help: 'Socket writes made by scheduled stream flushes in this process: one per live connection per flush, however many events it carried.',
  });
  const series = duration.series({});
  return scheduler.onFlush((flush) => {
    series.observe(flush.durationMs / 1000);
    writes.inc({}, flush.writes);
  });
}
