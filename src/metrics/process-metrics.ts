// The process's own health, read at scrape time: memory, CPU time, start time and event-loop lag.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { MetricsRegistry } from './metrics-registry.ts';

/** Event-loop lag percentiles reported; quantile 1 is the maximum. */
const LAG_QUANTILES = [0.5, 0.9, 0.99, 1] as const;
/** Sampling interval: fine enough to see a blocked loop, cheap enough to leave on. */
const RESOLUTION_MS = 20;

/** Registers the process gauges; returns the function that stops the event-loop monitor (on app close). */
export function registerProcessMetrics(registry: MetricsRegistry): () => void {
  const resident = registry.gauge({
    name: 'svc_process_resident_memory_bytes',
    help: 'Resident set size of the process.',
  });
  const heapUsed = registry.gauge({ name: 'svc_process_heap_used_bytes', help: 'V8 heap in use.' });
  const heapTotal = registry.gauge({ name: 'svc_process_heap_total_bytes', help: 'V8 heap allocated.' });
  const cpu = registry.counter({
    name: 'svc_process_cpu_seconds_total',
    help: 'User and system CPU time spent by the process.',
  });
  const started = registry.gauge({
    name: 'svc_process_start_time_seconds',
    help: 'Start time of the process, in seconds since the Unix epoch.',
  });
  const lag = registry.gauge({
    name: 'svc_process_event_loop_lag_seconds',
    help: 'Event-loop delay percentiles since the previous scrape (quantile 1 is the maximum); high values mean blocked request handling.',
    labelNames: ['quantile'],
  });
  started.set({}, Math.round((Date.now() - process.uptime() * 1000) / 1000));

  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delay.enable();
  let cpuReported = 0;

  registry.onCollect('process', () => {
    const memory = process.memoryUsage();
    resident.set({}, memory.rss);
    heapUsed.set({}, memory.heapUsed);
    heapTotal.set({}, memory.heapTotal);
    const usage = process.cpuUsage();
    const cpuSeconds = (usage.user + usage.system) / 1e6;
    // The counter moves by the CPU time since the last scrape, so it always equals the process total.
    cpu.inc({}, Math.max(0, cpuSeconds - cpuReported));
    cpuReported = Math.max(cpuReported, cpuSeconds);
    for (const quantile of LAG_QUANTILES) {
      if (delay.count === 0) {
        lag.set({ quantile }, 0);
        continue;
      }
      const nanoseconds = quantile === 1 ? delay.max : delay.percentile(quantile * 100);
      // The monitor records the time between its timer's runs, which includes the interval itself.
      lag.set({ quantile }, Math.max(0, nanoseconds / 1e9 - RESOLUTION_MS / 1000));
    }
    // Each scrape reports the interval since the previous one, not the whole life of the process.
    delay.reset();
  });
  return () => delay.disable();
}
