// The machine a run happened on, for BENCHMARKS.md: cores, CPU model, memory, Node, load generator.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg, release, totalmem } from 'node:os';

function cpuModel(): string {
  try {
    return /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

function commandVersion(command: string, args: string[]): string {
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
      .split('\n')[0]!
      .trim();
  } catch (error) {
    // wrk -v prints its version and exits 1.
    const out = (error as { stdout?: string }).stdout;
    return out ? out.split('\n')[0]!.trim() : 'not installed';
  }
}

export function machineInfo(driver: string): string[] {
  return [
    `cores (nproc): ${availableParallelism()}`,
    `CPU: ${cpuModel()}`,
    `memory: ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Linux ${release()}`,
    `Node.js ${process.version}`,
    `load average at start: ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')} (1/5/15 min; other work on the machine skews absolute numbers, less so the ratios)`,
    `load generator: ${driver === 'wrk' ? commandVersion('wrk', ['-v']) : 'autocannon (fallback)'}`,
  ];
}
