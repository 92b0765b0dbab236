// The bench's reading of svc's own fan-out metrics: the counters out of a real exposition, and what
// happened between two readings.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MetricsRegistry } from '../../src/metrics/metrics-registry.ts';
import { registerStreamFlushMetrics } from '../../src/metrics/stream-flush-metrics.ts';
import { FlushScheduler } from '../../src/stream/flush-scheduler.ts';
import { fanoutStats, parseFanoutCounters } from '../../bench/fanout-metrics.ts';

/** Flushes `scheduler` once: a target that "writes" to `writes` connections, busy for `ms`. */
async function flushOnce(scheduler: FlushScheduler, ms: number, writes: number): Promise<void> {
  let done = false;
  scheduler.schedule({
    flush() {
      const until = performance.now() + ms;
      while (performance.now() < until) {
        // Busy: stands for the socket writes.
      }
      done = true;
      return writes;
    },
  });
  while (!done) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('bench fan-out metrics', () => {
  it("reads svc's flush and create-time counters from its exposition and reports what happened between two readings", async () => {
    const registry = new MetricsRegistry();
    const scheduler = new FlushScheduler();
    const stop = registerStreamFlushMetrics(registry, scheduler);
    // The request histogram as svc registers it (service-metrics.ts): default buckets, by method and route.
    const requests = registry.histogram<'method' | 'route'>({
      name: 'svc_http_request_duration_seconds',
      help: 'h',
      labelNames: ['method', 'route'],
    });
    const creates = requests.series({ method: 'POST', route: '/v1/:resource' });
    requests.observe({ method: 'GET', route: '/v1/:resource' }, 9);
    await flushOnce(scheduler, 0, 10);
    creates.observe(0.003);
    const before = parseFanoutCounters(registry.render());
    assert.ok(before, 'the counters are in the exposition');
    assert.deepEqual({ flushes: before.flushes, writes: before.writes }, { flushes: 1, writes: 10 });

    await flushOnce(scheduler, 0, 1000);
    await flushOnce(scheduler, 30, 1000);
    await flushOnce(scheduler, 60, 1000);
    for (let i = 0; i < 98; i++) creates.observe(0.004);
    creates.observe(0.02);
    creates.observe(0.2);
    const after = parseFanoutCounters(registry.render())!;
    stop();

    const stats = fanoutStats(before, after);
    assert.equal(stats.flushes, 3);
    assert.equal(stats.writesPerFlush, 1000);
    assert.equal(stats.flushesOver25ms, 2);
    assert.equal(stats.flushesOver50ms, 1);
    assert.ok(stats.meanFlushMs >= 30, `mean ${stats.meanFlushMs} ms`);
    // 90+ ms over 3,000 writes: about 30 µs each.
    assert.ok(stats.usPerWrite >= 30 && stats.usPerWrite < 1000, `${stats.usPerWrite} µs per write`);
    // 100 creates between the readings, the 99th within the 25 ms bucket; the GET is not a create.
    assert.equal(stats.creates, 100);
    assert.equal(stats.createP99UpToMs, 25);
  });

  it('answers undefined for an exposition without the flush metrics (an older svc)', () => {
    assert.equal(parseFanoutCounters('# TYPE svc_build_info gauge\nsvc_build_info{version="0.1.0"} 1\n'), undefined);
  });
});
