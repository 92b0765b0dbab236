// What a webhook delivery adds to a create, on the core svc runs on: creates through RecordService in
// process (no HTTP, so no load generator shares the measurement), with and without one matching
// subscription, the receiver on the other core. Creates are paced to stay at most `--lag` ahead of
// the receiver, as the HTTP bench's creates are, so attempts are leased as they are queued (the
// steady state), not claimed from a backlog. Reports CPU per create for the main thread and for the
// process's other threads (V8's GC helpers, SQLite's checkpointer), and bytes and calls of I/O.
//   taskset -c 0 node --import tsx bench/delivery-cost.ts [--db sqlite|postgres] [--creates N] [--rounds N] [--lag N]
// PostgreSQL needs BENCH_DATABASE_URL. Each mode runs in a fresh process on a fresh database;
// rounds alternate the modes, since the machine's speed drifts.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildApp } from '../src/server.ts';
import type { Principal } from '../src/model/principal.ts';
import { BENCH_ROLE, writeBenchConfig } from './bench-config.ts';
import { createFreshDatabase } from './bench-database.ts';
import { threadCpuNs } from './cpu-time.ts';
import type { BenchDatabase } from './bench-options.ts';
import { startWebhookReceiver } from './webhook-receiver.ts';

const CONCURRENCY = 32;
const WARMUP_CREATES = 5000;

interface Sample {
  mainUs: number;
  otherUs: number;
  ioBytes: { read: number; written: number };
  ioCalls: { read: number; written: number };
  delivered: number;
}

const { values } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    creates: { type: 'string', default: '40000' },
    rounds: { type: 'string', default: '2' },
    lag: { type: 'string', default: '100' },
    mode: { type: 'string' },
    receiver: { type: 'boolean', default: false },
  },
});

function ioCounters(): Record<string, number> {
  return Object.fromEntries(
    readFileSync('/proc/self/io', 'utf8')
      .trim()
      .split('\n')
      .map((line) => {
        const [key, value] = line.split(': ');
        return [key!, Number(value)];
      }),
  );
}

/** The receiver, in its own process on core 1; it reports its count on stdout every few milliseconds. */
async function runReceiver(): Promise<void> {
  const receiver = await startWebhookReceiver();
  process.stdout.write(`${receiver.url}\n`);
  setInterval(() => process.stdout.write(`count ${receiver.count()}\n`), 5);
}

async function measureOne(
  database: BenchDatabase,
  withWebhook: boolean,
  creates: number,
  lag: number,
): Promise<Sample> {
  const fresh = await createFreshDatabase(database, process.env.BENCH_DATABASE_URL);
  process.env.SVC_SECRET ??= randomBytes(32).toString('base64');
  const bench = writeBenchConfig(fresh.url);
  const { app, ctx } = await buildApp({ config: bench.config });
  await app.ready();
  const child = spawn(
    'taskset',
    ['-c', '1', process.execPath, '--import', 'tsx', fileURLToPath(import.meta.url), '--receiver'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const [first] = (await once(child.stdout!, 'data')) as [Buffer];
  const url = first.toString().split('\n')[0]!.trim();
  let received = 0;
  child.stdout!.on('data', (chunk: Buffer) => {
    const match = /count (\d+)\s*$/.exec(chunk.toString());
    if (match) received = Number(match[1]);
  });
  try {
    if (withWebhook) {
      const answer = await app.inject({
        method: 'POST',
        url: '/admin/webhooks',
        headers: { authorization: `Bearer ${bench.adminToken}` },
        payload: { name: 'cost', url, eventPattern: 'posts.created', enabled: true, headers: {} },
      });
      if (answer.statusCode !== 201)
        throw new Error(`POST /admin/webhooks answered ${answer.statusCode}: ${answer.body}`);
    }
    const resource = ctx.registry.find('posts')!;
    const principal: Principal = {
      kind: 'key',
      keyId: 'bench',
      userId: 'bench-user',
      role: BENCH_ROLE,
      keyPermissions: null,
    };
    let counter = 0;
    const body = () => ({
      title: `Bench post ${++counter}`,
      body: 'Written by the delivery cost bench.',
      status: 'published',
      views: counter % 100000,
      published: true,
      tags: ['bench'],
    });
    const pause = () => new Promise((resolve) => setTimeout(resolve, 1));
    const run = async (count: number) => {
      const start = received;
      let started = 0;
      const lane = async () => {
        for (;;) {
          // Never more than `lag` ahead of the receiver: the worker keeps up, as under HTTP load.
          while (withWebhook && started - (received - start) > lag) await pause();
          // Counted after the wait: other lanes may have started the last creates meanwhile.
          if (started >= count) return;
          started++;
          await ctx.records.create(resource, { principal }, body());
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, lane));
      const deadline = Date.now() + 60_000;
      while (withWebhook && received - start < count && Date.now() < deadline) await pause();
      return received - start;
    };
    await run(WARMUP_CREATES);
    const cpu = threadCpuNs(process.pid);
    const io = ioCounters();
    const delivered = await run(creates);
    const cpuAfter = threadCpuNs(process.pid);
    const ioAfter = ioCounters();
    let mainNs = 0;
    let otherNs = 0;
    for (const [tid, after] of cpuAfter) {
      const used = after - (cpu.get(tid) ?? 0);
      if (tid === process.pid) mainNs += used;
      else otherNs += used;
    }
    const perCreate = (value: number) => value / creates;
    return {
      mainUs: perCreate(mainNs / 1000),
      otherUs: perCreate(otherNs / 1000),
      ioBytes: { read: perCreate(ioAfter.rchar! - io.rchar!), written: perCreate(ioAfter.wchar! - io.wchar!) },
      ioCalls: { read: perCreate(ioAfter.syscr! - io.syscr!), written: perCreate(ioAfter.syscw! - io.syscw!) },
      delivered,
    };
  } finally {
    child.kill();
    await app.close();
    await ctx.store.close();
    await fresh.drop();
  }
}

async function runMode(mode: 'with' | 'without'): Promise<Sample> {
  const self = [
    process.execPath,
    '--import',
    'tsx',
    fileURLToPath(import.meta.url),
    '--db',
    values.db!,
    '--creates',
    values.creates!,
    '--lag',
    values.lag!,
    '--mode',
    mode,
  ];
  const child = spawn(self[0]!, self.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number];
  if (code !== 0) throw new Error(`the ${mode} run exited with ${code}`);
  return JSON.parse(out.trim().split('\n').at(-1)!) as Sample;
}

function row(label: string, sample: Sample): string {
  const total = sample.mainUs + sample.otherUs;
  return `| ${label} | ${total.toFixed(1)} | ${sample.mainUs.toFixed(1)} | ${sample.otherUs.toFixed(1)} | ${(sample.ioBytes.written / 1024).toFixed(1)} | ${sample.ioCalls.written.toFixed(2)} | ${(sample.ioBytes.read / 1024).toFixed(1)} | ${sample.ioCalls.read.toFixed(2)} |`;
}

if (values.receiver) {
  await runReceiver();
} else if (values.mode) {
  const sample = await measureOne(
    values.db as BenchDatabase,
    values.mode === 'with',
    Number(values.creates),
    Number(values.lag),
  );
  process.stdout.write(`${JSON.stringify(sample)}\n`);
  process.exit(0);
} else {
  const lines = [
    `delivery cost: ${values.db}, ${values.creates} creates per run (after ${WARMUP_CREATES} to warm up), ${CONCURRENCY} at a time, at most ${values.lag} ahead of the receiver`,
    '',
    '| run | CPU µs per create | main thread | other threads | KiB written | write calls | KiB read | read calls |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const differences: number[] = [];
  for (let round = 1; round <= Number(values.rounds); round++) {
    const withWebhook = await runMode('with');
    const without = await runMode('without');
    if (withWebhook.delivered !== Number(values.creates))
      lines.push(`(round ${round}: ${withWebhook.delivered} of ${values.creates} delivered)`);
    lines.push(row(`${round}: with a subscription`, withWebhook), row(`${round}: without`, without));
    differences.push(withWebhook.mainUs + withWebhook.otherUs - without.mainUs - without.otherUs);
  }
  lines.push('', `a delivery adds ${differences.map((d) => d.toFixed(1)).join(', ')} µs of CPU to its create`);
  process.stdout.write(`${lines.join('\n')}\n`);
}
