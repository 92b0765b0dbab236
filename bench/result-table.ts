// The results as a Markdown table (printed, and pasted into BENCHMARKS.md).
import type { BenchDatabase } from './bench-options.ts';

export interface ResultRow {
  database: BenchDatabase | '-';
  scenario: string;
  label: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Highest VmRSS sampled during the measurement; svc's VmHWM is reported per database. */
  peakRssMb: number;
  /** svc's CPU time (all its threads) per completed request, µs (bench/cpu-time.ts). */
  cpuUsPerRequest: number;
  /** The kernel's share of that CPU time (system calls), 0-1; null where /proc could not tell. */
  kernelShare: number | null;
  /** requests/s ÷ the ceiling's requests/s in the same run. */
  ratio: number | null;
  /** The ceiling's CPU per request ÷ this row's: the ratio on CPU cost alone, without waits. */
  cpuRatio: number | null;
  target: number | null;
  errors: number;
  requests: number;
  note?: string;
}

const fixed = (value: number, digits: number) => value.toFixed(digits);

export function verdict(row: ResultRow): string {
  if (row.errors > 0) return 'ERRORS';
  if (row.target === null || row.ratio === null) return '';
  return row.ratio >= row.target ? 'ok' : 'MISS';
}

export function resultTable(rows: ResultRow[]): string {
  const header = [
    'db',
    'scenario',
    'req/s',
    'p50 ms',
    'p99 ms',
    'peak RSS MB',
    'ratio',
    'target',
    '',
    'CPU µs/req',
    'CPU ratio',
    'kernel %',
    'errors',
  ];
  const lines = [
    `| ${header.join(' | ')} |`,
    `|${header.map((_, i) => ((i >= 2 && i <= 7) || (i >= 9 && i <= 11) ? '---:' : '---')).join('|')}|`,
  ];
  for (const row of rows) {
    lines.push(
      `| ${[
        row.database,
        row.label,
        fixed(row.requestsPerSecond, 0),
        fixed(row.p50Ms, 2),
        fixed(row.p99Ms, 2),
        fixed(row.peakRssMb, 0),
        row.ratio === null ? '' : fixed(row.ratio, 2),
        row.target === null ? '' : `>= ${fixed(row.target, 2)}`,
        verdict(row),
        fixed(row.cpuUsPerRequest, 0),
        row.cpuRatio === null ? '' : fixed(row.cpuRatio, 2),
        row.kernelShare === null ? '' : fixed(row.kernelShare * 100, 0),
        `${row.errors}/${row.requests}`,
      ].join(' | ')} |`,
    );
  }
  return lines.join('\n');
}
