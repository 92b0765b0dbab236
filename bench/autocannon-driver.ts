// Drives a scenario with autocannon in a child process pinned to its own core (the fallback without wrk).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { LoadDriver, LoadResult, LoadRun } from './load-result.ts';

const run = promisify(execFile);
const WORKER = fileURLToPath(new URL('./autocannon-worker.ts', import.meta.url));

export const autocannonDriver: LoadDriver = {
  name: 'autocannon',
  async run(load: LoadRun): Promise<LoadResult> {
    const { stdout } = await run('taskset', ['-c', String(load.cpu), process.execPath, '--import', import.meta.resolve('tsx'), WORKER, JSON.stringify(load)], {
      maxBuffer: 16 * 1024 * 1024,
    });
    const line = stdout.trim().split('\n').at(-1) ?? '';
    const r = JSON.parse(line) as { requests: number; seconds: number; p50: number; p99: number; errors: number };
    return { requests: r.requests, seconds: r.seconds, requestsPerSecond: r.requests / r.seconds, p50Ms: r.p50, p99Ms: r.p99, errors: r.errors };
  },
};
