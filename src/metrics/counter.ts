// A counter: a total that only goes up (requests served, rejections), one per label combination.
import { checkLabelName, checkMetricName, familyHeader, formatLabels, formatValue } from './exposition-format.ts';
import { LabelledSeries, type Labels } from './labelled-series.ts';
import type { Metric, MetricOptions } from './metric.ts';

/** One series of a counter, resolved once: a hot path keeps it rather than naming its labels per increment. */
export interface CounterSeries {
  inc(by?: number): void;
}

export class Counter<L extends string = never> implements Metric {
  readonly type = 'counter';
  readonly name: string;
  readonly help: string;
  readonly #series: LabelledSeries<L, { value: number }>;

  constructor(options: MetricOptions<L>) {
    checkMetricName(options.name);
    const labelNames = options.labelNames ?? [];
    labelNames.forEach(checkLabelName);
    this.name = options.name;
    this.help = options.help;
    this.#series = new LabelledSeries(labelNames, () => ({ value: 0 }));
  }

  inc(labels: Labels<L> = {} as Labels<L>, by = 1): void {
    this.#add(this.#series.get(labels), by);
  }

  series(labels: Labels<L> = {} as Labels<L>): CounterSeries {
    const state = this.#series.get(labels);
    return { inc: (by = 1) => this.#add(state, by) };
  }

  #add(state: { value: number }, by: number): void {
    // A counter that went down would read as a process restart to Prometheus' rate().
    if (!(by >= 0)) throw new Error(`Counter ${this.name} can only increase (got ${by})`);
    state.value += by;
  }

  value(labels: Labels<L> = {} as Labels<L>): number {
    return this.#series.get(labels).value;
  }

  render(): string[] {
    const lines = familyHeader(this.name, this.help, this.type);
    // A counter without labels is shown from the start, so a rate over it has a first sample of 0.
    if (this.#series.labelNames.length === 0 && this.#series.size === 0) lines.push(`${this.name} 0`);
    for (const { values, state } of this.#series.entries()) {
      lines.push(`${this.name}${formatLabels(this.#series.labelNames, values)} ${formatValue(state.value)}`);
    }
    return lines;
  }
}
