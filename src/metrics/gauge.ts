// A gauge: a value that goes up and down (connections, queue depth), usually set when a scrape collects it.
import { checkLabelName, checkMetricName, familyHeader, formatLabels, formatValue } from './exposition-format.ts';
import { LabelledSeries, type Labels } from './labelled-series.ts';
import type { Metric, MetricOptions } from './metric.ts';

export class Gauge<L extends string = never> implements Metric {
  readonly type = 'gauge';
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

  set(labels: Labels<L>, value: number): void {
    this.#series.get(labels).value = value;
  }

  inc(labels: Labels<L> = {} as Labels<L>, by = 1): void {
    this.#series.get(labels).value += by;
  }

  dec(labels: Labels<L> = {} as Labels<L>, by = 1): void {
    this.#series.get(labels).value -= by;
  }

  value(labels: Labels<L> = {} as Labels<L>): number {
    return this.#series.get(labels).value;
  }

  /** Forgets every series: a collector that sets all its series each scrape drops the ones that are gone. */
  reset(): void {
    this.#series.clear();
  }

  render(): string[] {
    const lines = familyHeader(this.name, this.help, this.type);
    for (const { values, state } of this.#series.entries()) {
      lines.push(`${this.name}${formatLabels(this.#series.labelNames, values)} ${formatValue(state.value)}`);
    }
    return lines;
  }
}
