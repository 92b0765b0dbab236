// An interleaved A/B of scenarios between source trees (BENCHMARKS.md, "A/B a change"). On a
// shared VM the speed of a core drifts by up to 2x within minutes, so two whole bench runs, one after
// the other, cannot tell a 10% change from the drift. Here every tree's svc runs at once (each seeded by
// its own bench code, each started with its own package.json flags, all pinned to core 0), and short
// wrk bursts go to one tree after the other, round after round, in alternating order: a drift hits
// every tree alike, and the medians compare them.
//
// Usage: node --import tsx bench/ab.ts NAME=TREE NAME=TREE... [--rounds 10] [--seconds 3]
//          [--scenarios get-one,list-50]
// A tree is a checkout with node_modules and a built bundle (`git worktree add`, a symlinked
// node_modules and `node scripts/build.mjs`); its bench/ must have the same seed and config modules.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { processCpuNs } from './cpu-time.ts';
import { SCENARIOS, type ScenarioName } from './scenarios.ts';
import { startServerProcess, type ServerProcess } from './server-process.ts';
import { svcStartFlags } from './start-flags.ts';
import { wrkDriver } from './wrk-driver.ts';

/** The scenarios that need no webhook subscription and no rows of the caller's own (patch). */
const AB_SCENARIOS: readonly ScenarioName[] = ['get-one', 'list-50', 'filter-sort', 'create-no-webhook'];
const SERVER_CPU = 0;
const LOAD_CPU = 1;

interface Side {
  name: string;
  tree: string;
  svc: ServerProcess;
  authorization: string;
  ids: string[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    rounds: { type: 'string', default: '10' },
    seconds: { type: 'string', default: '3' },
    scenarios: { type: 'string', default: 'get-one,list-50' },
  },
});
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
const scenarios = values.scenarios.split(',') as ScenarioName[];
for (const name of scenarios) {
  if (!AB_SCENARIOS.includes(name)) throw new Error(`--scenarios: any of ${AB_SCENARIOS.join(', ')}`);
}
if (positionals.length < 2 || !positionals.every((p) => p.includes('='))) {
  throw new Error('usage: ab.ts NAME=TREE NAME=TREE... [--rounds N] [--seconds S] [--scenarios a,b]');
}

const work = mkdtempSync(join(tmpdir(), 'svc-ab-'));
const sides: Side[] = [];
try {
  for (const spec of positionals) {
    const [name, path] = spec.split('=') as [string, string];
    const tree = resolve(path);
    const out = join(work, `${name}.json`);
    execFileSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'ab-seed.ts'), tree, out], {
      cwd: tree,
      stdio: 'inherit',
    });
    const seeded = JSON.parse(readFileSync(out, 'utf8')) as {
      configFile: string;
      authorization: string;
      ids: string[];
    };
    const svc = await startServerProcess({
      nodeFlags: svcStartFlags(tree),
      script: join(tree, 'bin/svc.js'),
      args: ['start', '--config', seeded.configFile, '--port', '0'],
      env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'warn', NODE_ENV: 'production' },
      cpu: SERVER_CPU,
      cwd: tree,
    });
    sides.push({ name, tree, svc, authorization: seeded.authorization, ids: seeded.ids });
  }

  let bursts = 0;
  const burst = async (side: Side, scenario: ScenarioName, burstSeconds: number) => {
    const data = { userId: '', authorization: side.authorization, readableIds: side.ids, ownIds: [] };
    const request = SCENARIOS[scenario].request(data);
    const before = processCpuNs(side.svc.pid);
    const result = await wrkDriver.run({
      baseUrl: side.svc.url,
      method: request.method,
      paths: request.paths,
      ...(request.body ? { body: request.body } : {}),
      authorization: side.authorization,
      connections: 32,
      seconds: burstSeconds,
      // Bodies differ between bursts (creates of unique fields stay unique).
      counterStart: (bursts += 100_000),
      cpu: LOAD_CPU,
    });
    if (result.errors > 0) throw new Error(`${side.name} ${scenario}: ${result.errors} errors`);
    return { rps: result.requestsPerSecond, cpuUs: (processCpuNs(side.svc.pid) - before) / 1000 / result.requests };
  };

  for (const side of sides) for (const scenario of scenarios) await burst(side, scenario, 2);
  const samples = new Map<string, { rps: number[]; cpuUs: number[] }>();
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? sides : [...sides].reverse();
    for (const scenario of scenarios) {
      for (const side of order) {
        const { rps, cpuUs } = await burst(side, scenario, seconds);
        const key = `${scenario}\u0000${side.name}`;
        const sample = samples.get(key) ?? { rps: [], cpuUs: [] };
        sample.rps.push(rps);
        sample.cpuUs.push(cpuUs);
        samples.set(key, sample);
      }
    }
  }

  const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
  console.log(`\n${rounds} rounds of ${seconds} s per tree and scenario, medians (first tree = 1.00):`);
  console.log('| scenario | tree | req/s | vs first | CPU µs/req | vs first |\n|---|---|---:|---:|---:|---:|');
  for (const scenario of scenarios) {
    const first = samples.get(`${scenario}\u0000${sides[0]!.name}`)!;
    for (const side of sides) {
      const sample = samples.get(`${scenario}\u0000${side.name}`)!;
      const rps = median(sample.rps);
      const cpu = median(sample.cpuUs);
      console.log(
        `| ${scenario} | ${side.name} | ${rps.toFixed(0)} | ${(rps / median(first.rps)).toFixed(2)} | ` +
          `${cpu.toFixed(0)} | ${(cpu / median(first.cpuUs)).toFixed(2)} |`,
      );
    }
  }
} finally {
  await Promise.all(sides.map((side) => side.svc.stop()));
}
