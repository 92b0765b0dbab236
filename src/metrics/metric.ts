// What every metric family gives the registry: its name and the text lines it renders.
export type MetricType = 'counter' | 'gauge' | 'histogram';

export interface Metric {
  readonly name: string;
  readonly help: string;
  readonly type: MetricType;
  /** The family's lines, `# HELP` and `# TYPE` first. */
  render(): string[];
}

export interface MetricOptions<L extends string> {
  name: string;
  help: string;
  labelNames?: readonly L[];
}
