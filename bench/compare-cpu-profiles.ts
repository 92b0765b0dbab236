// Compares two V8 CPU profiles per request: self time in µs per request, by file/package and by
// function, for a scenario and its baseline (create with its webhook against create without), sorted
// by what the first adds. Percentages of one profile hide this: a delivery makes every other share
// smaller. Runnable alone on the bench's profiles (their .window.json gives the measured window and
// the requests completed in it):
//   node --import tsx bench/compare-cpu-profiles.ts SCENARIO.cpuprofile BASELINE.cpuprofile [--top N]
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { selfTimes, type CpuProfile, type ProfileWindow } from './summarize-cpu-profile.ts';

export interface MeasuredProfile {
  profile: CpuProfile;
  window: ProfileWindow & { requests: number };
}

export interface ProfileComparison {
  /** Busy (not idle) µs per request in each profile. */
  busyUs: [number, number];
  byFile: ComparedRow[];
  byFunction: ComparedRow[];
}

/** µs per request in the scenario, in the baseline, and the difference. */
export type ComparedRow = [key: string, scenarioUs: number, baselineUs: number, addedUs: number];

export function compareProfiles(scenario: MeasuredProfile, baseline: MeasuredProfile, top = 20): ProfileComparison {
  const a = selfTimes(scenario.profile, scenario.window);
  const b = selfTimes(baseline.profile, baseline.window);
  const perRequest = (us: number, measured: MeasuredProfile) => us / Math.max(1, measured.window.requests);
  const compared = (left: Map<string, number>, right: Map<string, number>): ComparedRow[] =>
    [...new Set([...left.keys(), ...right.keys()])]
      .filter((key) => key !== '(idle)')
      .map((key): ComparedRow => {
        const x = perRequest(left.get(key) ?? 0, scenario);
        const y = perRequest(right.get(key) ?? 0, baseline);
        return [key, x, y, x - y];
      })
      .sort((p, q) => Math.abs(q[3]) - Math.abs(p[3]))
      .slice(0, top);
  return {
    busyUs: [perRequest(a.busyUs, scenario), perRequest(b.busyUs, baseline)],
    byFile: compared(a.byFile, b.byFile),
    byFunction: compared(a.byFunction, b.byFunction),
  };
}

export function formatComparison(comparison: ProfileComparison, names: [string, string]): string {
  const [busyA, busyB] = comparison.busyUs;
  const us = (value: number) => value.toFixed(1).padStart(7);
  const columns = `  ${'added'.padStart(7)} ${names[0].slice(0, 7).padStart(7)} ${names[1].slice(0, 7).padStart(7)}`;
  const section = (title: string, rows: ComparedRow[]) =>
    [title, columns, ...rows.map(([key, x, y, added]) => `  ${us(added)} ${us(x)} ${us(y)}  ${key}`)].join('\n');
  return [
    `main thread busy per request: ${busyA.toFixed(1)} µs (${names[0]}), ${busyB.toFixed(1)} µs (${names[1]}): ${(busyA - busyB).toFixed(1)} µs added`,
    section('self time by file/package, µs per request, largest difference first:', comparison.byFile),
    section('self time by function, µs per request, largest difference first:', comparison.byFunction),
  ].join('\n\n');
}

/** A profile the bench wrote, with its measured window and request count from FILE.window.json. */
export function readMeasuredProfile(file: string): MeasuredProfile {
  const { startUs, endUs, requests } = JSON.parse(readFileSync(`${file}.window.json`, 'utf8')) as ProfileWindow;
  if (requests === undefined) throw new Error(`${file}.window.json has no request count (written by an older bench)`);
  return { profile: JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, window: { startUs, endUs, requests } };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [scenarioFile, baselineFile] = process.argv.slice(2);
  if (!scenarioFile || !baselineFile) {
    process.stderr.write(
      'Usage: node --import tsx bench/compare-cpu-profiles.ts SCENARIO.cpuprofile BASELINE.cpuprofile [--top N]\n',
    );
    process.exit(2);
  }
  const topIndex = process.argv.indexOf('--top');
  const top = topIndex > 0 ? Number(process.argv[topIndex + 1]) : 20;
  const comparison = compareProfiles(readMeasuredProfile(scenarioFile), readMeasuredProfile(baselineFile), top);
  process.stdout.write(`${formatComparison(comparison, ['scenario', 'baseline'])}\n`);
}
