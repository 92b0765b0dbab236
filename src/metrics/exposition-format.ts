// The Prometheus text exposition format (version 0.0.4): names, label escaping and sample values.
// https://prometheus.io/docs/instrumenting/exposition_formats/

export const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export function checkMetricName(name: string): void {
  if (!METRIC_NAME.test(name)) throw new Error(`Invalid metric name: ${name}`);
}

export function checkLabelName(name: string): void {
  // Names starting with __ are reserved for Prometheus itself.
  if (!LABEL_NAME.test(name) || name.startsWith('__')) throw new Error(`Invalid label name: ${name}`);
}

/** Inside a label value: backslash, double quote and line feed are escaped. */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** In a HELP line only backslash and line feed are escaped. */
export function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

/** `{a="1",b="2"}`, or the empty string for no labels. */
export function formatLabels(names: readonly string[], values: readonly string[]): string {
  if (names.length === 0) return '';
  return `{${names.map((name, i) => `${name}="${escapeLabelValue(values[i] ?? '')}"`).join(',')}}`;
}

/** The `# HELP` and `# TYPE` lines that open a metric family. */
export function familyHeader(name: string, help: string, type: string): string[] {
  return [`# HELP ${name} ${escapeHelp(help)}`, `# TYPE ${name} ${type}`];
}
