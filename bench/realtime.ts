// The realtime measurements of issue 5: SSE fan-out (N clients, W writes/s, write-to-receive latency,
// svc memory over the run) and webhook delivery throughput (a fast and a slow receiver, retries off).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { LoadDriver } from './load-result.ts';
import type { SeededData } from './seed.ts';
import type { ServerProcess } from './server-process.ts';
import type { SseResult, SseRun } from './sse-driver.ts';
import { RssSampler, rssMb } from './rss-sampler.ts';
import { startWebhookReceiver } from './webhook-receiver.ts';

const run = promisify(execFile);
const SSE_DRIVER = fileURLToPath(new URL('./sse-driver.ts', import.meta.url));

export interface SseFanout extends SseResult {
  writesPerSecond: number;
  /** Every client had a `_filter` of its own (1,000 views), rather than all sharing one view. */
  filtered: boolean;
  /** svc VmRSS sampled each second: first, last and highest (flat memory = last close to first). */
  rssStartMb: number;
  rssEndMb: number;
  rssMaxMb: number;
}

export async function measureSseFanout(
  svc: ServerProcess,
  seeded: SeededData,
  options: {
    clients: number;
    writesPerSecond: number;
    seconds: number;
    warmupSeconds: number;
    cpu: number;
    adminToken: string;
    nativeReader?: string;
    filtered?: boolean;
  },
): Promise<SseFanout> {
  const samples: number[] = [];
  const timer = setInterval(() => samples.push(rssMb(svc.pid)), 1000);
  samples.push(rssMb(svc.pid));
  try {
    const args: SseRun = {
      baseUrl: svc.url,
      authorization: seeded.authorization,
      clients: options.clients,
      writesPerSecond: options.writesPerSecond,
      seconds: options.seconds,
      warmupSeconds: options.warmupSeconds,
      metricsAuthorization: `Bearer ${options.adminToken}`,
      ...(options.nativeReader ? { nativeReader: options.nativeReader } : {}),
      filtered: options.filtered === true,
    };
    const { stdout } = await run(
      'taskset',
      [
        '-c',
        String(options.cpu),
        process.execPath,
        '--import',
        import.meta.resolve('tsx'),
        SSE_DRIVER,
        JSON.stringify(args),
      ],
      {
        maxBuffer: 16 * 1024 * 1024,
        timeout: (options.warmupSeconds + options.seconds + 120) * 1000,
      },
    );
    const result = JSON.parse(stdout.trim().split('\n').at(-1)!) as SseResult;
    samples.push(rssMb(svc.pid));
    return {
      ...result,
      writesPerSecond: options.writesPerSecond,
      filtered: options.filtered === true,
      rssStartMb: samples[0]!,
      rssEndMb: samples.at(-1)!,
      rssMaxMb: Math.max(...samples),
    };
  } finally {
    clearInterval(timer);
  }
}

export interface WebhookThroughput {
  seconds: number;
  creates: number;
  createsPerSecond: number;
  /** Deliveries to the fast receiver: all of them, and per second from the first to the last. */
  fastDelivered: number;
  fastPerSecond: number;
  /** Event written → delivered at the fast receiver. */
  fastLagP50Ms: number;
  fastLagP99Ms: number;
  /** How long after the load stopped the fast receiver got its last delivery. */
  drainMs: number;
  slowDelivered: number;
  slowDelayMs: number;
  /** Deliveries queued while the fast receiver held its answers, then sent with no other load. */
  backlog: number;
  /** Backlog deliveries per second from the release to the last one: the worker alone. */
  backlogPerSecond: number;
  /** svc's highest VmRSS during the phase (the backlog holds attempts in memory). */
  rssMaxMb: number;
}

async function subscribe(svc: ServerProcess, adminToken: string, name: string, url: string): Promise<string> {
  const response = await fetch(`${svc.url}/admin/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      name,
      url,
      eventPattern: 'posts.created',
      enabled: true,
      headers: {},
      retryConfig: { maxAttempts: 1 },
    }),
  });
  const text = await response.text();
  if (response.status !== 201 && response.status !== 200)
    throw new Error(`POST /admin/webhooks answered ${response.status}: ${text.slice(0, 300)}`);
  return (JSON.parse(text) as { data: { id: string } }).data.id;
}

async function unsubscribe(svc: ServerProcess, adminToken: string, id: string): Promise<void> {
  await fetch(`${svc.url}/admin/webhooks/${id}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${adminToken}` },
  });
}

/** How many posts the bench's user sees (every post it created among them): `meta.total` of a list. */
async function postsTotal(svc: ServerProcess, seeded: SeededData): Promise<number> {
  const response = await fetch(`${svc.url}/v1/posts?_limit=1&fields=title`, {
    headers: { authorization: seeded.authorization },
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET /v1/posts answered ${response.status}: ${text.slice(0, 300)}`);
  return (JSON.parse(text) as { meta: { total: number } }).meta.total;
}

/**
 * Creates posts as fast as `connections` clients can for `seconds`, each matching two subscriptions with
 * retries off: one to a receiver that answers at once, one to a receiver that takes `slowDelayMs`.
 */
export async function measureWebhookThroughput(
  svc: ServerProcess,
  seeded: SeededData,
  adminToken: string,
  driver: LoadDriver,
  options: { seconds: number; connections: number; cpu: number; slowDelayMs: number },
): Promise<WebhookThroughput> {
  const fast = await startWebhookReceiver({ timeLag: true });
  const slow = await startWebhookReceiver({ delayMs: options.slowDelayMs });
  const ids = [
    await subscribe(svc, adminToken, 'bench-fast', fast.url),
    await subscribe(svc, adminToken, 'bench-slow', slow.url),
  ];
  const rss = new RssSampler(svc.pid);
  try {
    const postsBefore = await postsTotal(svc, seeded);
    const load = await driver.run({
      baseUrl: svc.url,
      method: 'POST',
      paths: ['/v1/posts'],
      body: 'create-post',
      authorization: seeded.authorization,
      connections: options.connections,
      seconds: options.seconds,
      counterStart: 900_000_000,
      cpu: options.cpu,
    });
    const loadEnded = Date.now();
    // The load generator counts the answers it read; creates still in flight when it stopped (up to one
    // per connection) commit too, and are delivered. The posts' count is exact once they have.
    await new Promise((r) => setTimeout(r, 200));
    const creates = (await postsTotal(svc, seeded)) - postsBefore;
    // Every create is one delivery to the fast receiver; wait for them (bounded).
    const deadline = Date.now() + 60_000;
    while (fast.count() < creates && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const arrivals = fast.arrivals();
    const lags = [...fast.lags()].sort((a, b) => a - b);
    const at = (p: number) => lags[Math.min(lags.length - 1, Math.floor((p / 100) * lags.length))] ?? NaN;
    const span = arrivals.length > 1 ? (arrivals.at(-1)! - arrivals[0]!) / 1000 : NaN;
    const sustained = {
      delivered: fast.count(),
      perSecond: arrivals.length / span,
      drainMs: arrivals.length ? Math.max(0, arrivals.at(-1)! - loadEnded) : NaN,
    };

    // The worker alone: while the fast receiver holds its answers (its per-target slots fill and the
    // rest waits in the queue), create for half the time; then release and time the drain.
    fast.hold();
    const before = fast.count();
    const postsBeforeBacklog = await postsTotal(svc, seeded);
    await driver.run({
      baseUrl: svc.url,
      method: 'POST',
      paths: ['/v1/posts'],
      body: 'create-post',
      authorization: seeded.authorization,
      connections: options.connections,
      seconds: Math.max(2, Math.round(options.seconds / 2)),
      counterStart: 950_000_000,
      cpu: options.cpu,
    });
    await new Promise((r) => setTimeout(r, 500));
    const backlog = (await postsTotal(svc, seeded)) - postsBeforeBacklog;
    const released = Date.now();
    fast.release();
    const drainDeadline = Date.now() + 120_000;
    while (fast.count() - before < backlog && Date.now() < drainDeadline) await new Promise((r) => setTimeout(r, 20));
    const drained = fast.arrivals().slice(-Math.max(1, fast.count() - before));
    const drainSeconds = ((drained.at(-1) ?? released) - released) / 1000;
    return {
      seconds: load.seconds,
      creates,
      createsPerSecond: creates / load.seconds,
      fastDelivered: sustained.delivered,
      fastPerSecond: sustained.perSecond,
      fastLagP50Ms: at(50),
      fastLagP99Ms: at(99),
      drainMs: sustained.drainMs,
      backlog,
      backlogPerSecond: drained.filter((t) => t >= released).length / drainSeconds,
      slowDelivered: slow.count(),
      slowDelayMs: options.slowDelayMs,
      rssMaxMb: rss.stop(),
    };
  } finally {
    rss.stop();
    for (const id of ids) await unsubscribe(svc, adminToken, id).catch(() => {});
    await fast.close();
    await slow.close();
  }
}
