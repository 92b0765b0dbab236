// A histogram with fixed buckets: counts of observations at or below each bound, their sum and count.
// Buckets are rendered cumulatively with a final `le="+Inf"` equal to the count, as Prometheus expects.
import { checkLabelName, checkMetricName, familyHeader, formatLabels, formatValue } from './exposition-format.ts';
import { LabelledSeries, type Labels } from './labelled-series.ts';
import type { Metric, MetricOptions } from './metric.ts';

/** Prometheus' default buckets, in seconds: from 5 ms to 10 s. */
export const DEFAULT_SECONDS_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface HistogramState {
  /** Observations per bucket (not cumulative); the last slot is above every bound. */
  counts: number[];
  sum: number;
  count: number;
}

export interface HistogramOptions<L extends string> extends MetricOptions<L> {
  buckets?: readonly number[];
}

/** One series of a histogram, resolved once: a hot path keeps it rather than naming its labels per observation. */
export interface HistogramSeries {
  observe(value: number): void;
}

export class Histogram<L extends string = never> implements Metric {
  readonly type = 'histogram';
  readonly name: string;
  readonly help: string;
  readonly buckets: readonly number[];
  readonly #series: LabelledSeries<L, HistogramState>;

  constructor(options: HistogramOptions<L>) {
    checkMetricName(options.name);
    const labelNames = options.labelNames ?? [];
    for (const name of labelNames) {
      checkLabelName(name);
      if (name === 'le') throw new Error(`Histogram ${options.name}: the label name "le" is reserved for buckets`);
    }
    const buckets = options.buckets ?? DEFAULT_SECONDS_BUCKETS;
    if (buckets.length === 0 || buckets.some((b, i) => !Number.isFinite(b) || (i > 0 && b <= buckets[i - 1]!))) {
      throw new Error(`Histogram ${options.name}: buckets must be finite and strictly increasing`);
    }
    this.name = options.name;
    this.help = options.help;
    this.buckets = [...buckets];
    this.#series = new LabelledSeries(labelNames, () => ({
      counts: new Array<number>(buckets.length + 1).fill(0),
      sum: 0,
      count: 0,
    }));
  }

  observe(labels: Labels<L>, value: number): void {
    if (Number.isNaN(value)) return;
    this.#record(this.#series.get(labels), value);
  }

  series(labels: Labels<L>): HistogramSeries {
    const state = this.#series.get(labels);
    return {
      observe: (value) => {
        if (!Number.isNaN(value)) this.#record(state, value);
      },
    };
  }

  #record(state: HistogramState, value: number): void {
    const { buckets } = this;
    let slot = 0;
    while (slot < buckets.length && !(value <= buckets[slot]!)) slot++;
    state.counts[slot] = (state.counts[slot] ?? 0) + 1;
    state.sum += value;
    state.count += 1;
  }

  render(): string[] {
    const lines = familyHeader(this.name, this.help, this.type);
    const names = [...this.#series.labelNames, 'le'];
    for (const { values, state } of this.#series.entries()) {
      let cumulative = 0;
      this.buckets.forEach((bound, i) => {
        cumulative += state.counts[i] ?? 0;
        lines.push(`${this.name}_bucket${formatLabels(names, [...values, formatValue(bound)])} ${cumulative}`);
      });
      lines.push(`${this.name}_bucket${formatLabels(names, [...values, '+Inf'])} ${state.count}`);
      const own = formatLabels(this.#series.labelNames, values);
      lines.push(`${this.name}_sum${own} ${formatValue(state.sum)}`);
      lines.push(`${this.name}_count${own} ${state.count}`);
    }
    return lines;
  }
}
