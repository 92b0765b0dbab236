// Drives a scenario with autocannon in a child process pinned to its own core (the fallback without wrk).
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { LoadDriver, LoadResult, LoadRun } from './load-result.ts';

const run = promisify(execFile);
const WORKER = fileURLToPath(new URL('./autocannon-worker.ts', import.meta.url));

export const autocannonDriver: LoadDriver = {
  name: 'autocannon',
  async run(load: LoadRun): Promise<LoadResult> {
    // The run holds thousands of random paths: too many for a command line (E2BIG), so it goes in a file.
    const dir = await mkdtemp(join(tmpdir(), 'svc-bench-'));
    const loadFile = join(dir, 'load.json');
    await writeFile(loadFile, JSON.stringify(load));
    const { stdout } = await run(
      'taskset',
      ['-c', String(load.cpu), process.execPath, '--import', import.meta.resolve('tsx'), WORKER, loadFile],
      {
        maxBuffer: 16 * 1024 * 1024,
      },
    ).finally(() => rm(dir, { recursive: true, force: true }));
    const line = stdout.trim().split('\n').at(-1) ?? '';
    const r = JSON.parse(line) as { requests: number; seconds: number; p50: number; p99: number; errors: number };
    return {
      requests: r.requests,
      seconds: r.seconds,
      requestsPerSecond: r.requests / r.seconds,
      p50Ms: r.p50,
      p99Ms: r.p99,
      errors: r.errors,
    };
  },
};
