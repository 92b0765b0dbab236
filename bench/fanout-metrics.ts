// svc's own view of an SSE fan-out, from its /metrics before and after the measured run: how many
// flushes it made, what they cost and what one client's write cost, and how long it took to answer the
// creates. A client's delay is the create's own time, the flush interval and the flush itself, plus
// whatever the driver adds; these split svc's share from the driver's.
import http from 'node:http';

export interface FanoutCounters {
  /** svc_stream_flush_seconds_count, _sum, and the flushes at or under 25 and 50 ms (buckets). */
  flushes: number;
  flushSeconds: number;
  flushesUpTo25ms: number;
  flushesUpTo50ms: number;
  /** svc_stream_flush_writes_total. */
  writes: number;
  /** svc_http_request_duration_seconds for creates (POST /v1/:resource): cumulative count per bucket bound in seconds. */
  createBuckets: Map<number, number>;
}

export interface FanoutStats {
  flushes: number;
  meanFlushMs: number;
  flushesOver25ms: number;
  flushesOver50ms: number;
  /** Client writes per flush, on average: the live connections each flush reached. */
  writesPerFlush: number;
  /** Flush time per client write, in µs. */
  usPerWrite: number;
  creates: number;
  /** The bucket bound (ms) within which svc answered 99% of the creates; Infinity when above the last. */
  createP99UpToMs: number;
}

const CREATE_BUCKET =
  /^svc_http_request_duration_seconds_bucket\{method="POST",route="\/v1\/:resource",le="([^"]+)"\} (\S+)$/gm;

/** The counters in a Prometheus text exposition; undefined when svc does not export them. */
export function parseFanoutCounters(text: string): FanoutCounters | undefined {
  const value = (pattern: RegExp) => {
    const match = pattern.exec(text);
    return match ? Number(match[1]) : undefined;
  };
  const flushes = value(/^svc_stream_flush_seconds_count (\S+)$/m);
  const flushSeconds = value(/^svc_stream_flush_seconds_sum (\S+)$/m);
  const flushesUpTo25ms = value(/^svc_stream_flush_seconds_bucket\{le="0\.025"\} (\S+)$/m);
  const flushesUpTo50ms = value(/^svc_stream_flush_seconds_bucket\{le="0\.05"\} (\S+)$/m);
  const writes = value(/^svc_stream_flush_writes_total (\S+)$/m);
  if (
    flushes === undefined ||
    flushSeconds === undefined ||
    flushesUpTo25ms === undefined ||
    flushesUpTo50ms === undefined ||
    writes === undefined
  )
    return undefined;
  const createBuckets = new Map<number, number>();
  for (const [, le, count] of text.matchAll(CREATE_BUCKET))
    createBuckets.set(le === '+Inf' ? Infinity : Number(le), Number(count));
  return { flushes, flushSeconds, flushesUpTo25ms, flushesUpTo50ms, writes, createBuckets };
}

/** What happened between two readings of the counters. */
export function fanoutStats(before: FanoutCounters, after: FanoutCounters): FanoutStats {
  const flushes = after.flushes - before.flushes;
  const seconds = after.flushSeconds - before.flushSeconds;
  const writes = after.writes - before.writes;
  const bounds = [...after.createBuckets.keys()].sort((a, b) => a - b);
  const inBucket = (bound: number) => (after.createBuckets.get(bound) ?? 0) - (before.createBuckets.get(bound) ?? 0);
  const creates = bounds.length > 0 ? inBucket(Infinity) : 0;
  const p99Bound = bounds.find((bound) => inBucket(bound) >= 0.99 * creates);
  return {
    flushes,
    meanFlushMs: flushes > 0 ? (seconds * 1000) / flushes : NaN,
    flushesOver25ms: flushes - (after.flushesUpTo25ms - before.flushesUpTo25ms),
    flushesOver50ms: flushes - (after.flushesUpTo50ms - before.flushesUpTo50ms),
    writesPerFlush: flushes > 0 ? writes / flushes : NaN,
    usPerWrite: writes > 0 ? (seconds * 1e6) / writes : NaN,
    creates,
    createP99UpToMs: creates > 0 && p99Bound !== undefined ? p99Bound * 1000 : NaN,
  };
}

/**
 * Reads svc's counters; undefined when /metrics is unavailable or lacks them. Through node:http, which
 * the SSE driver has loaded already: fetch's first use loads undici, and that stalled the driver's loop
 * at the start of the measured run.
 */
export function readFanoutCounters(baseUrl: string, authorization: string): Promise<FanoutCounters | undefined> {
  return new Promise((resolve) => {
    const request = http.get(`${baseUrl}/metrics`, { headers: { authorization } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve(response.statusCode === 200 ? parseFanoutCounters(Buffer.concat(chunks).toString('utf8')) : undefined),
      );
      response.on('error', () => resolve(undefined));
    });
    request.on('error', () => resolve(undefined));
  });
}
