// The metrics of one app: families created through it, collectors run before each scrape (values read
// from the database or the runtime), and the whole rendered in the Prometheus text format.
import { Counter } from './counter.ts';
import { Gauge } from './gauge.ts';
import { Histogram, type HistogramOptions } from './histogram.ts';
import type { Metric, MetricOptions } from './metric.ts';

/** Sets gauges from their source at scrape time. */
export type Collector = () => void | Promise<void>;

export interface CollectorFailure {
  collector: string;
  error: unknown;
}

export class MetricsRegistry {
  readonly #metrics = new Map<string, Metric>();
  readonly #collectors = new Map<string, Collector>();

  counter<L extends string = never>(options: MetricOptions<L>): Counter<L> {
    return this.add(new Counter(options));
  }

  gauge<L extends string = never>(options: MetricOptions<L>): Gauge<L> {
    return this.add(new Gauge(options));
  }

  histogram<L extends string = never>(options: HistogramOptions<L>): Histogram<L> {
    return this.add(new Histogram(options));
  }

  add<M extends Metric>(metric: M): M {
    if (this.#metrics.has(metric.name)) throw new Error(`Metric ${metric.name} is already registered`);
    this.#metrics.set(metric.name, metric);
    return metric;
  }

  /** Runs `collector` before every scrape; `name` says which one failed. */
  onCollect(name: string, collector: Collector): void {
    if (this.#collectors.has(name)) throw new Error(`Collector ${name} is already registered`);
    this.#collectors.set(name, collector);
  }

  /**
   * Runs every collector, side by side. A failing collector (the database is down) does not fail the
   * scrape: its gauges keep their last values and the failure is returned for the caller to report.
   */
  async collect(): Promise<CollectorFailure[]> {
    const entries = [...this.#collectors];
    const results = await Promise.allSettled(entries.map(async ([, collector]) => collector()));
    const failures: CollectorFailure[] = [];
    results.forEach((result, i) => {
      if (result.status === 'rejected') failures.push({ collector: entries[i]![0], error: result.reason });
    });
    return failures;
  }

  /** Every family in registration order, in text format 0.0.4 (ends with a line feed). */
  render(): string {
    const lines: string[] = [];
    for (const metric of this.#metrics.values()) lines.push(...metric.render());
    return `${lines.join('\n')}\n`;
  }
}
