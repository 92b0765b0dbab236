// The SSE fan-out measurement, run as its own process pinned to the load core: opens N stream clients
// (read natively by bench/sse-reader.c where it was built, else by Node on raw sockets in this
// process), then creates posts at a fixed rate and times each event from the moment its POST was sent
// to the moment each client reads it. Prints one JSON line. Invoked by run.ts with a JSON argument (see SseRun).
import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fanoutStats, readFanoutCounters, type FanoutStats } from './fanout-metrics.ts';
import { openNativeReaders } from './native-stream-readers.ts';
import { openNodeReaders } from './node-stream-readers.ts';
import { stealMeter } from './steal-time.ts';
import { monotonicMs, type StreamReaders } from './stream-readers.ts';

export interface SseRun {
  baseUrl: string;
  authorization: string;
  clients: number;
  writesPerSecond: number;
  seconds: number;
  /**
   * Seconds of writes at the same rate before the measured ones, their events counted but not timed (the
   * HTTP scenarios' warm-up, for the write path, the fan-out and the driver's own code).
   */
  warmupSeconds?: number;
  /** The admin token's Authorization header, to read svc's flush metrics around the measured run. */
  metricsAuthorization?: string;
  /** The built bench/sse-reader.c; without it the clients are read by Node in the driver's process. */
  nativeReader?: string;
  /** Each client streams through a `_filter` of its own (no two share a view); every post matches all of them. */
  filtered?: boolean;
}

export interface SseResult {
  /** Who read the streams: bench/sse-reader.c in its own process, or Node in the driver's. */
  reader: 'native' | 'node';
  clients: number;
  connected: number;
  writes: number;
  writeErrors: number;
  /** Writes sent before the measurement (warmupSeconds), and how many of them failed. */
  warmupWrites: number;
  warmupWriteErrors: number;
  expected: number;
  received: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** The driver's own event-loop delay p99: high means the driver, not svc, was the bottleneck. */
  driverLagP99Ms: number;
  /**
   * The driver's CPU time (its readers' included) over the wall time of the measured run (with its
   * wait for late events): near 1, the driver's core, not svc, was the bottleneck.
   */
  driverCpuShare: number;
  /** The native readers' share of that, in their own process; 0 when Node read the streams. */
  readerCpuShare: number;
  /** Streams whose connection closed after their preamble, warm-up included (svc drops a client that does not keep up). */
  streamsClosed: number;
  /**
   * Each timed POST from its send to the end of its answer: the write's own latency, which every
   * client's write-to-receive latency includes (the event goes out at the commit, before the answer).
   */
  writeP50Ms: number;
  writeP99Ms: number;
  /** By the second in which the POST was sent: whether the tail is spread out or a few bad seconds. */
  perSecond: SseSecond[];
  /** svc's flushes and create times during the measured run (its /metrics), when it could be read. */
  svc?: FanoutStats;
}

export interface SseSecond {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** The driver's loop delay p99 during that second of the run. */
  driverLagP99Ms: number;
  /** Milliseconds the hypervisor took from each core during that second (/proc/stat), by core. */
  stolenMs: number[];
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function main(run: SseRun): Promise<SseResult> {
  const url = new URL(run.baseUrl);
  const port = Number(url.port);
  /** Per timed POST: when it was sent (monotonicMs), 0 until then. */
  const sentAt = new Float64Array(run.writesPerSecond * run.seconds + 16);
  /** Per timed POST: send to answer, NaN until answered. */
  const answeredAfter = new Float64Array(sentAt.length).fill(NaN);
  const lag = monitorEventLoopDelay({ resolution: 10 });
  const readers: StreamReaders = run.nativeReader
    ? await openNativeReaders(run.nativeReader, url, run.authorization, run.clients, run.filtered)
    : await openNodeReaders(url, run.authorization, run.clients, run.filtered);
  const { connected } = readers;

  // Enough connections that no write waits in the driver for one: with 16, up to 47 POSTs queued here
  // whenever answers slowed, and that wait counted as svc's write-to-receive latency.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  let writes = 0;
  let writeErrors = 0;
  /** Creates post `seq` (timed), or warm-up post `seq` when `warm`. */
  const post = (seq: number, warm = false) =>
    new Promise<void>((resolve) => {
      const body = `{"title":"sse-${warm ? 'warm-' : ''}${seq}","status":"published","published":true}`;
      if (!warm) sentAt[seq] = monotonicMs();
      const request = http.request(
        {
          host: url.hostname,
          port,
          path: '/v1/posts',
          method: 'POST',
          agent,
          headers: {
            authorization: run.authorization,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (response) => {
          if (response.statusCode !== 201) writeErrors++;
          response.resume();
          response.on('end', () => {
            if (!warm) answeredAfter[seq] = monotonicMs() - sentAt[seq]!;
            resolve();
          });
        },
      );
      request.on('error', () => {
        writeErrors++;
        resolve();
      });
      request.end(body);
    });

  /** Sends `total` posts at the run's rate from now on; resolves when every answer is in. */
  const paced = async (total: number, send: (seq: number) => Promise<void>): Promise<number> => {
    const from = performance.now();
    const inFlight = new Set<Promise<void>>();
    let sent = 0;
    await new Promise<void>((resolve) => {
      const tick = setInterval(() => {
        const due = Math.min(total, Math.floor(((performance.now() - from) / 1000) * run.writesPerSecond));
        while (sent < due) {
          const p = send(++sent).finally(() => inFlight.delete(p));
          inFlight.add(p);
        }
        if (sent >= total) {
          clearInterval(tick);
          resolve();
        }
      }, 2);
    });
    await Promise.all(inFlight);
    return sent;
  };

  const warmWrites = Math.round((run.warmupSeconds ?? 0) * run.writesPerSecond);
  let warmupWriteErrors = 0;
  if (warmWrites > 0) {
    const errorsBefore = writeErrors;
    const sent = await paced(warmWrites, (seq) => post(seq, true));
    const warmExpected = connected * (sent - (writeErrors - errorsBefore));
    const warmDeadline = performance.now() + 5000;
    while ((await readers.counts()).warm < warmExpected && performance.now() < warmDeadline)
      await new Promise((r) => setTimeout(r, 20));
    warmupWriteErrors = writeErrors - errorsBefore;
    writeErrors = errorsBefore;
  }

  const readSvcCounters = () =>
    run.metricsAuthorization ? readFanoutCounters(run.baseUrl, run.metricsAuthorization) : Promise.resolve(undefined);
  const svcBefore = await readSvcCounters();
  const countsBefore = await readers.counts();
  lag.enable();
  const started = performance.now();
  const startedAt = monotonicMs();
  const cpuBefore = process.cpuUsage();
  const secondLag = monitorEventLoopDelay({ resolution: 10 });
  secondLag.enable();
  const lagBySecond: number[] = [];
  const stolenBySecond: number[][] = [];
  const stolen = stealMeter();
  const lagTimer = setInterval(() => {
    lagBySecond.push(secondLag.percentile(99) / 1e6);
    secondLag.reset();
    stolenBySecond.push(stolen());
  }, 1000);
  writes = await paced(run.writesPerSecond * run.seconds, (seq) => post(seq));
  // Stragglers: stop when every event has arrived or after 5 s.
  const expected = connected * (writes - writeErrors);
  const deadline = performance.now() + 5000;
  let counts = await readers.counts();
  while (counts.timed < expected && performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    counts = await readers.counts();
  }
  clearInterval(lagTimer);
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const readerCpuMs = counts.cpuMs - countsBefore.cpuMs;
  const svcAfter = await readSvcCounters();
  secondLag.disable();
  lag.disable();
  const events = await readers.timedEvents();
  readers.close();
  agent.destroy();

  const latencies = new Float64Array(events.length / 2);
  let received = 0;
  const bySecond: number[][] = [];
  for (let i = 0; i < events.length; i += 2) {
    const sent = sentAt[events[i]!];
    if (!sent) continue;
    const latency = events[i + 1]! - sent;
    latencies[received++] = latency;
    (bySecond[Math.floor((sent - startedAt) / 1000)] ??= []).push(latency);
  }
  const sorted = latencies.slice(0, received).sort();
  const writeTimes = answeredAfter.filter((ms) => !Number.isNaN(ms)).sort();
  const perSecond = Array.from(bySecond, (values, second) => {
    const s = Float64Array.from(values ?? []).sort();
    return {
      p50Ms: percentile(s, 50),
      p99Ms: percentile(s, 99),
      maxMs: s.length ? s[s.length - 1]! : NaN,
      driverLagP99Ms: lagBySecond[second] ?? NaN,
      stolenMs: stolenBySecond[second] ?? [],
    };
  });
  return {
    reader: readers.kind,
    clients: run.clients,
    connected,
    writes,
    writeErrors,
    warmupWrites: warmWrites,
    warmupWriteErrors,
    expected,
    received,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted.length ? sorted[sorted.length - 1]! : NaN,
    driverLagP99Ms: lag.percentile(99) / 1e6,
    driverCpuShare: ((cpu.user + cpu.system) / 1000 + readerCpuMs) / wallMs,
    readerCpuShare: readerCpuMs / wallMs,
    streamsClosed: counts.closed,
    writeP50Ms: percentile(writeTimes, 50),
    writeP99Ms: percentile(writeTimes, 99),
    perSecond,
    ...(svcBefore && svcAfter ? { svc: fanoutStats(svcBefore, svcAfter) } : {}),
  };
}

const result = await main(JSON.parse(process.argv[2] ?? '{}') as SseRun);
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);
