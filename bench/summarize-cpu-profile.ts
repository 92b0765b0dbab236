// Summarises a V8 .cpuprofile (`node --cpu-prof`): where the samples fall by self time per function and
// per file/package, and inclusive time per function. Runnable alone:
//   node --import tsx bench/summarize-cpu-profile.ts FILE.cpuprofile [--top N]
// (a FILE.cpuprofile.window.json written by the bench limits it to the measured run).
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A time range in the profile's clock (CLOCK_MONOTONIC µs on Linux, as `process.hrtime`). */
export interface ProfileWindow {
  startUs: number;
  endUs: number;
  /** Requests completed in the window, where the bench wrote it (bench/compare-cpu-profiles.ts needs it). */
  requests?: number;
}

export interface ProfileSummary {
  totalMs: number;
  idleMs: number;
  byFunction: [string, number][];
  byFile: [string, number][];
  inclusive: [string, number][];
}

const ROOT = process.cwd();

/** A script URL as a short owner: `src/records/record-service.ts`, `kysely`, `node:internal/…`. */
export function ownerOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return url;
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  const modules = path.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const parts = path.slice(modules + '/node_modules/'.length).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  return path.startsWith(`${ROOT}/`) ? path.slice(ROOT.length + 1) : path;
}

function functionKey(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const owner = ownerOf(url, functionName);
  if (url === '') return functionName || '(anonymous)';
  return `${functionName || '(anonymous)'} ${owner}:${lineNumber + 1}`;
}

/** Microseconds of samples per profile node; only samples inside `window` count when one is given. */
function selfByNode(profile: CpuProfile, window?: ProfileWindow): Map<number, number> {
  const selfUs = new Map<number, number>();
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (window && (at < window.startUs || at > window.endUs)) continue;
    selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
  }
  return selfUs;
}

const add = (map: Map<string, number>, key: string, us: number) => map.set(key, (map.get(key) ?? 0) + us);

/** Self time in µs by function and by file/package. */
export interface SelfTimes {
  totalUs: number;
  idleUs: number;
  busyUs: number;
  byFunction: Map<string, number>;
  byFile: Map<string, number>;
}

export function selfTimes(profile: CpuProfile, window?: ProfileWindow): SelfTimes {
  return selfTimesOf(profile, selfByNode(profile, window));
}

function selfTimesOf(profile: CpuProfile, selfUs: Map<number, number>): SelfTimes {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id)!;
    total += us;
    if (node.callFrame.functionName === '(idle)') idle += us;
    add(byFunction, functionKey(node), us);
    add(byFile, ownerOf(node.callFrame.url, node.callFrame.functionName), us);
  }
  return { totalUs: total, idleUs: idle, busyUs: total - idle, byFunction, byFile };
}

/** Only samples inside `window` count when one is given (e.g. the measured run, not start-up). */
export function summarizeProfile(profile: CpuProfile, top = 25, window?: ProfileWindow): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = selfByNode(profile, window);
  const { totalUs, idleUs, byFunction, byFile } = selfTimesOf(profile, selfUs);
  // Inclusive time: a node's self time plus its subtree's, counted once per function on any one stack.
  const inclusive = new Map<string, number>();
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  for (const [id, us] of selfUs) {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
      const key = functionKey(byId.get(at)!);
      if (seen.has(key)) continue;
      seen.add(key);
      add(inclusive, key, us);
    }
  }
  const sorted = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, us]): [string, number] => [k, us / 1000]);
  return {
    totalMs: totalUs / 1000,
    idleMs: idleUs / 1000,
    byFunction: sorted(byFunction),
    byFile: sorted(byFile),
    inclusive: sorted(inclusive),
  };
}

export function formatSummary(summary: ProfileSummary): string {
  const busy = summary.totalMs - summary.idleMs;
  const pct = (ms: number) => `${((ms / busy) * 100).toFixed(1).padStart(5)}%`;
  const section = (title: string, rows: [string, number][]) =>
    [
      `${title}`,
      ...rows.filter(([k]) => k !== '(idle)').map(([k, ms]) => `  ${pct(ms)}  ${ms.toFixed(0).padStart(7)} ms  ${k}`),
    ].join('\n');
  return [
    `sampled ${summary.totalMs.toFixed(0)} ms, idle ${summary.idleMs.toFixed(0)} ms; percentages are of the ${busy.toFixed(0)} ms busy`,
    section('self time by file/package:', summary.byFile),
    section('self time by function:', summary.byFunction),
    section('inclusive time by function:', summary.inclusive),
  ].join('\n\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('Usage: node --import tsx bench/summarize-cpu-profile.ts FILE.cpuprofile [--top N]\n');
    process.exit(2);
  }
  const topIndex = process.argv.indexOf('--top');
  const top = topIndex > 0 ? Number(process.argv[topIndex + 1]) : 25;
  const windowFile = `${file}.window.json`;
  const window = existsSync(windowFile) ? (JSON.parse(readFileSync(windowFile, 'utf8')) as ProfileWindow) : undefined;
  process.stdout.write(
    `${formatSummary(summarizeProfile(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, top, window))}\n`,
  );
}
