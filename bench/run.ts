// `npm run bench`: seeds posts, starts svc pinned to core 0 (and, in the same run, a bare Fastify route as
// the ceiling), drives each scenario with a load generator pinned to core 1, and prints requests/s,
// latency, peak RSS and the ratio to the ceiling per database. See BENCHMARKS.md for results.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseBenchOptions, type BenchDatabase, type BenchOptions } from './bench-options.ts';
import { writeBenchConfig, type BenchConfig } from './bench-config.ts';
import { createFreshDatabase } from './bench-database.ts';
import { growPosts, seed, type SeededData } from './seed.ts';
import { SCENARIOS, bodyFor, type Scenario, type ScenarioRequest } from './scenarios.ts';
import type { LoadDriver, LoadResult } from './load-result.ts';
import { wrkDriver } from './wrk-driver.ts';
import { autocannonDriver } from './autocannon-driver.ts';
import { startServerProcess, type ServerProcess } from './server-process.ts';
import { RssSampler, peakRssMb } from './rss-sampler.ts';
import { svcStartFlags } from './start-flags.ts';
import { kernelShare, processCpuNs, processCpuTicks } from './cpu-time.ts';
import { resultTable, type ResultRow } from './result-table.ts';
import { machineInfo } from './machine-info.ts';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.ts';
import { compareProfiles, formatComparison, readMeasuredProfile } from './compare-cpu-profiles.ts';
import { formatSummary, summarizeProfile, type ProfileWindow } from './summarize-cpu-profile.ts';
import { measureCountCost, type CountCost } from './count-cost.ts';
import { measureKeysetCost, type KeysetCost } from './keyset-cost.ts';
import { formatBulkCost, measureBulkCost, type BulkCost } from './bulk-cost.ts';
import { formatSlowHookCost, measureSlowHookCost, type SlowHookCost } from './slow-hook-cost.ts';
import { formatSearchCost, measureSearchCost, type SearchCost } from './search-cost.ts';
import { formatAggregateCost, measureAggregateCost, type AggregateCost } from './aggregate-cost.ts';
import { measureSseFanout, measureWebhookThroughput, type SseFanout, type WebhookThroughput } from './realtime.ts';
import { buildSseReader } from './sse-reader-build.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** tsx by absolute URL: children run with their own working directory. */
const TSX = import.meta.resolve('tsx');
const SERVER_CPU = 0;
const LOAD_CPU = 1;
/** The slow webhook receiver answers after this long. */
const SLOW_RECEIVER_MS = 1000;

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

function hasCommand(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

interface Measured {
  result: LoadResult;
  rssMb: number;
  /** svc's CPU time per completed request during the measured run, in µs. */
  cpuUsPerRequest: number;
  /** The kernel's share of that CPU time (bench/cpu-time.ts). */
  kernelShare: number | null;
  /** When the measured run (not the warm-up) happened, in the CPU profile's clock. */
  window: ProfileWindow;
}

const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

class Bench {
  readonly rows: ResultRow[] = [];
  readonly notes: string[] = [];
  readonly profiles: { database: BenchDatabase; scenario: string; file: string; summary: string }[] = [];
  readonly countCosts: (CountCost & { database: BenchDatabase })[] = [];
  readonly keysetCosts: (KeysetCost & { database: BenchDatabase })[] = [];
  readonly searchCosts: SearchCost[] = [];
  readonly aggregateCosts: AggregateCost[] = [];
  readonly bulkCosts: (BulkCost & { database: BenchDatabase })[] = [];
  readonly slowHookCosts: (SlowHookCost & { database: BenchDatabase })[] = [];
  readonly sse: (SseFanout & { database: BenchDatabase })[] = [];
  readonly webhooks: (WebhookThroughput & { database: BenchDatabase })[] = [];
  #counter = 1_000_000;

  #cli: boolean | undefined;
  #sseReader: Promise<string | undefined> | undefined;

  constructor(
    readonly options: BenchOptions,
    readonly driver: LoadDriver,
  ) {}

  /** Whether `node bin/svc.js` loads; if not, svc is started through bench/start-svc.ts (and that is noted). */
  cliWorks(): boolean {
    if (this.#cli === undefined) {
      this.#cli =
        spawnSync(process.execPath, [join(ROOT, 'bin/svc.js'), '--help'], { stdio: 'ignore', cwd: ROOT }).status === 0;
      if (!this.#cli)
        this.notes.push(
          '`node bin/svc.js --help` failed (CLI mid-change), so svc was started through bench/start-svc.ts: the same loadConfig + startServer as `svc start`',
        );
    }
    return this.#cli;
  }

  /** The native SSE reader, built once; undefined (and noted) when Node reads the streams. */
  sseReader(): Promise<string | undefined> {
    this.#sseReader ??= (async () => {
      if (this.options.sseReader === 'node') return undefined;
      const built = await buildSseReader();
      if ('path' in built) return built.path;
      this.notes.push(`SSE clients read by Node, not bench/sse-reader.c: ${built.error}`);
      return undefined;
    })();
    return this.#sseReader;
  }

  async measure(baseUrl: string, request: ScenarioRequest, pid: number, authorization?: string): Promise<Measured> {
    const base = {
      baseUrl,
      method: request.method,
      paths: request.paths,
      authorization,
      connections: this.options.connections,
      cpu: LOAD_CPU,
    };
    const withBody = request.body ? { body: request.body } : {};
    if (this.options.warmup > 0) {
      await this.driver.run({
        ...base,
        ...withBody,
        seconds: this.options.warmup,
        counterStart: (this.#counter += 10_000_000),
      });
    }
    const sampler = new RssSampler(pid);
    const startUs = monotonicUs();
    const cpuBefore = processCpuNs(pid);
    const ticksBefore = processCpuTicks(pid);
    const result = await this.driver.run({
      ...base,
      ...withBody,
      seconds: this.options.duration,
      counterStart: (this.#counter += 10_000_000),
    });
    const cpuUsPerRequest = (processCpuNs(pid) - cpuBefore) / 1000 / Math.max(1, result.requests);
    return {
      result,
      rssMb: sampler.stop(),
      cpuUsPerRequest,
      kernelShare: kernelShare(ticksBefore, processCpuTicks(pid)),
      window: { startUs, endUs: monotonicUs(), requests: result.requests },
    };
  }

  startCeiling(): Promise<ServerProcess> {
    return freePort().then((port) =>
      startServerProcess({
        nodeFlags: ['--import', TSX],
        script: join(ROOT, 'bench/ceiling-server.ts'),
        args: [String(port)],
        env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'production' },
        cpu: SERVER_CPU,
        cwd: ROOT,
      }),
    );
  }

  /** The bare route, measured like a scenario; its row is added by the caller. */
  async measureCeiling(server: ServerProcess, database: BenchDatabase, label: string): Promise<ResultRow> {
    const { result, rssMb, cpuUsPerRequest, kernelShare } = await this.measure(
      server.url,
      { method: 'GET', paths: ['/ceiling'], status: 200 },
      server.pid,
    );
    log(`  ${label}: ${result.requestsPerSecond.toFixed(0)} req/s, ${cpuUsPerRequest.toFixed(0)} µs CPU per request`);
    return {
      database,
      scenario: 'ceiling',
      label,
      ...pick(result),
      peakRssMb: rssMb,
      cpuUsPerRequest,
      kernelShare,
      ratio: null,
      cpuRatio: null,
      target: null,
    };
  }

  async startSvc(bench: BenchConfig, profileDir?: string, hooked = false): Promise<ServerProcess> {
    // Default file names (CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile): tsx's loader thread writes one too.
    const profileFlags = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
    const port = String(await freePort());
    const cli = this.cliWorks();
    return startServerProcess({
      // As `npm start` runs it (its V8 flags), plus the profiler's.
      nodeFlags: [...svcStartFlags(ROOT), ...profileFlags, ...(cli ? [] : ['--import', TSX])],
      script: join(ROOT, cli ? 'bin/svc.js' : 'bench/start-svc.ts'),
      args: cli
        ? ['start', '--config', hooked ? bench.hookedFile : bench.file, '--port', port]
        : [hooked ? bench.hookedFile : bench.file, port],
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        LOG_LEVEL: 'warn',
        NODE_ENV: 'production',
        SVC_SECRET: process.env.SVC_SECRET,
        // A profile of the bundle names one file for all of svc (functions keep their names); from
        // source it names each module, but tsx's heap is 40-50 MB larger and its collections cost more.
        ...(profileDir && this.options.profileSources ? { SVC_FROM_SOURCE: '1' } : {}),
        // Node or V8 flags for svc alone (e.g. heap sizes), not for the runner.
        ...(process.env.BENCH_SVC_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_SVC_NODE_OPTIONS } : {}),
      },
      cpu: SERVER_CPU,
      cwd: ROOT,
    });
  }

  async runDatabase(database: BenchDatabase): Promise<void> {
    const { options } = this;
    log(`\n== ${database}: seeding ${options.rows} posts`);
    const fresh = await createFreshDatabase(database, options.postgresUrl);
    try {
      const bench = writeBenchConfig(fresh.url);
      const seeded = await seed(bench.config, options.rows);
      const ceilingServer = await this.startCeiling();
      const receiver = await startWebhookReceiver();
      let svc: ServerProcess | undefined;
      // The machine may be shared: the ceiling is measured before and after the scenarios, and every
      // ratio is taken against the mean of the two (both rows are shown).
      const ceilingRows = [await this.measureCeiling(ceilingServer, database, 'ceiling: bare Fastify route (before)')];
      const rows: ResultRow[] = [];
      try {
        let subscription: string | undefined;
        let svcHooked = false;
        for (const name of options.scenarios) {
          const scenario = SCENARIOS[name];
          const profileDir = options.profile ? mkdtempSync(join(tmpdir(), 'svc-bench-prof-')) : undefined;
          // A hooked scenario runs on a svc of its own (with the hooks file), and the next one on a plain one again.
          if (svc && (profileDir || scenario.withHooks || svcHooked)) {
            await svc.stop();
            svc = undefined;
          }
          if (!svc) {
            svc = await this.startSvc(bench, profileDir, scenario.withHooks === true);
            svcHooked = scenario.withHooks === true;
          }
          if (scenario.withoutWebhook) {
            if (subscription) await this.unsubscribe(svc, bench, subscription);
            subscription = undefined;
          } else {
            subscription ??= await this.subscribe(svc, bench, receiver, database);
          }
          const before = receiver.count();
          const { row, window } = await this.runScenario(database, scenario, svc, seeded);
          rows.push(row);
          if (name === 'create') {
            row.note = subscription
              ? `${receiver.count() - before} webhook deliveries received during the run`
              : 'no webhook subscription (admin webhook API not available)';
          }
          if (profileDir) {
            await svc.stop();
            svc = undefined;
            this.addProfile(database, name, profileDir, window);
          }
        }
        this.compareProfiledCreates(database);
        svc ??= await this.startSvc(bench);
        // Bulk creates measure what a request and its transaction cost per record, as bench/bulk-cost.ts
        // alone does: without the create scenario's subscription, whose deliveries cost each record the
        // same in both forms and would hide the difference.
        if (subscription) await this.unsubscribe(svc, bench, subscription);
        subscription = undefined;
        log('  bulk creates: single POSTs against atomic batches (no webhook subscription)');
        this.bulkCosts.push({ database, ...(await measureBulkCost(svc.url, seeded.authorization)) });
        ceilingRows.push(await this.measureCeiling(ceilingServer, database, 'ceiling: bare Fastify route (after)'));
        if (options.sseClients > 0) {
          svc ??= await this.startSvc(bench);
          await this.realtime(database, svc, bench, seeded);
        }
        if (svc)
          this.notes.push(`${database}: svc peak RSS over the whole run (VmHWM) ${peakRssMb(svc.pid).toFixed(0)} MB`);
        if (options.scenarios.includes('create-hooked')) {
          // Last, on a svc of its own with the hooks file (the others keep their warmed-up process), with
          // no subscription since the bulk creates: the wait for the slow hook's transaction alone.
          if (svc) await svc.stop();
          svc = await this.startSvc(bench, undefined, true);
          log('  a slow before-hook beside other creates');
          this.slowHookCosts.push({ database, ...(await measureSlowHookCost(svc.url, seeded.authorization)) });
          await svc.stop();
          svc = undefined;
        }
      } finally {
        await svc?.stop();
        await ceilingServer.stop();
        await receiver.close();
      }
      const ceiling = ceilingRows.reduce((sum, row) => sum + row.requestsPerSecond, 0) / ceilingRows.length;
      const ceilingCpu = ceilingRows.reduce((sum, row) => sum + row.cpuUsPerRequest, 0) / ceilingRows.length;
      for (const row of [...ceilingRows, ...rows]) {
        row.ratio = row.requestsPerSecond / ceiling;
        row.cpuRatio = ceilingCpu / row.cpuUsPerRequest;
      }
      this.rows.push(...ceilingRows, ...rows);
      if (options.growthRows > options.rows) await this.growth(database, bench, seeded, ceiling, ceilingCpu);
    } finally {
      await fresh.drop();
    }
    if (options.searchRows > 0) await this.searchCost(database);
  }

  /** `_search` against a filter list of the same size, and an aggregate against a GROUP BY by hand, each on a database of its own. */
  async searchCost(database: BenchDatabase): Promise<void> {
    const rows = this.options.searchRows;
    log(`  search cost: seeding ${rows.toLocaleString('en')} articles`);
    try {
      this.searchCosts.push(await measureSearchCost(database, rows, this.options.postgresUrl));
    } catch (error) {
      this.notes.push(`${database}: search cost not measured: ${(error as Error).message.split('\n')[0]}`);
    }
    log(`  aggregate cost: seeding ${rows.toLocaleString('en')} articles`);
    try {
      this.aggregateCosts.push(await measureAggregateCost(database, rows, this.options.postgresUrl));
    } catch (error) {
      this.notes.push(`${database}: aggregate cost not measured: ${(error as Error).message.split('\n')[0]}`);
    }
  }

  /** Measures one scenario; the ratio is filled in once the run's ceiling is known. */
  async runScenario(
    database: BenchDatabase,
    scenario: Scenario,
    svc: ServerProcess,
    seeded: SeededData,
    label?: string,
  ): Promise<{ row: ResultRow; window: ProfileWindow }> {
    const request = scenario.request(seeded);
    let measured: Measured;
    try {
      await probe(svc.url, request, seeded.authorization);
      measured = await this.measure(svc.url, request, svc.pid, seeded.authorization);
    } catch (error) {
      throw new Error(
        `${database} ${scenario.name} failed: ${(error as Error).message}\nsvc stderr (tail):\n${svc.stderr().slice(-4000)}`,
      );
    }
    const { result, rssMb, cpuUsPerRequest, kernelShare, window } = measured;
    const target = scenario.targets[database] ?? null;
    const row: ResultRow = {
      database,
      scenario: scenario.name,
      label: label ?? scenario.label,
      ...pick(result),
      peakRssMb: rssMb,
      cpuUsPerRequest,
      kernelShare,
      ratio: null,
      cpuRatio: null,
      target,
    };
    log(
      `  ${row.label}: ${result.requestsPerSecond.toFixed(0)} req/s, p99 ${result.p99Ms.toFixed(1)} ms, ${cpuUsPerRequest.toFixed(0)} µs CPU per request${result.errors ? `, ${result.errors} errors` : ''}`,
    );
    return { row, window };
  }

  /** One subscription matching `posts.created`, delivered to a local receiver (create includes delivery). */
  async subscribe(
    svc: ServerProcess,
    bench: BenchConfig,
    receiver: WebhookReceiver,
    database: BenchDatabase,
  ): Promise<string | undefined> {
    const response = await fetch(`${svc.url}/admin/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bench.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'bench',
        url: receiver.url,
        eventPattern: 'posts.created',
        enabled: true,
        headers: {},
      }),
    });
    const text = await response.text();
    if (response.status === 201 || response.status === 200)
      return (JSON.parse(text) as { data: { id: string } }).data.id;
    this.notes.push(
      `${database}: POST /admin/webhooks answered ${response.status}; create ran without a webhook subscription`,
    );
    return undefined;
  }

  async unsubscribe(svc: ServerProcess, bench: BenchConfig, id: string): Promise<void> {
    await fetch(`${svc.url}/admin/webhooks/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${bench.adminToken}` },
    });
  }

  /**
   * One SSE fan-out: every client on one view, or (filtered) each through a `_filter` of its own, which
   * every post matches: the same deliveries, with a view per client to evaluate.
   */
  async sseFanout(
    database: BenchDatabase,
    svc: ServerProcess,
    bench: BenchConfig,
    seeded: SeededData,
    filtered: boolean,
  ): Promise<void> {
    const { options } = this;
    try {
      log(
        `  SSE fan-out${filtered ? ', a distinct _filter per client' : ''}: ${options.sseClients} clients, ${options.sseWritesPerSecond} writes/s for ${options.realtimeSeconds} s`,
      );
      const nativeReader = await this.sseReader();
      const sse = await measureSseFanout(svc, seeded, {
        clients: options.sseClients,
        writesPerSecond: options.sseWritesPerSecond,
        seconds: options.realtimeSeconds,
        warmupSeconds: options.warmup,
        cpu: LOAD_CPU,
        adminToken: bench.adminToken,
        ...(nativeReader ? { nativeReader } : {}),
        filtered,
      });
      this.sse.push({ database, ...sse });
      log(
        `    received ${sse.received}/${sse.expected}, p99 ${sse.p99Ms.toFixed(1)} ms; the writes answered in p50 ${sse.writeP50Ms.toFixed(1)} / p99 ${sse.writeP99Ms.toFixed(1)} ms; the driver used ${(sse.driverCpuShare * 100).toFixed(0)}% of its core (${sse.reader === 'native' ? `native readers: ${(sse.readerCpuShare * 100).toFixed(0)}%` : 'the streams read by Node in it'})${sse.streamsClosed ? `; ${sse.streamsClosed} streams ended` : ''}`,
      );
      if (sse.svc) {
        const s = sse.svc;
        log(
          `    svc's own view: ${s.flushes} flushes, mean ${s.meanFlushMs.toFixed(1)} ms (over 25 ms: ${s.flushesOver25ms}, over 50 ms: ${s.flushesOver50ms}), ${s.writesPerFlush.toFixed(0)} clients each, ${s.usPerWrite.toFixed(1)} µs per client write; ${s.creates} creates answered, 99% within ${s.createP99UpToMs} ms`,
        );
      }
      log(
        `    per second sent, p50/p99/max ms (driver lag p99; ms stolen from cores ${SERVER_CPU}/${LOAD_CPU}): ${sse.perSecond.map((s) => `${[s.p50Ms, s.p99Ms, s.maxMs].map((n) => Number(n ?? NaN).toFixed(0)).join('/')} (${Number(s.driverLagP99Ms ?? NaN).toFixed(0)}; ${s.stolenMs[SERVER_CPU] ?? '-'}/${s.stolenMs[LOAD_CPU] ?? '-'})`).join(', ')}`,
      );
    } catch (error) {
      // The driver's own words are on its stderr; the command line alone says nothing.
      const lines = (error as { stderr?: string }).stderr?.trim().split('\n') ?? [];
      const stderr = lines.find((line) => /^\w*Error: /.test(line)) ?? lines.at(-1);
      this.notes.push(
        `${database}: SSE fan-out${filtered ? ' (filtered)' : ''} not measured: ${stderr || (error as Error).message.split('\n')[0]}`,
      );
    }
  }

  /** SSE fan-out (one view, then a filter per client), then webhook throughput, on a running svc. A missing feature is noted, not fatal. */
  async realtime(database: BenchDatabase, svc: ServerProcess, bench: BenchConfig, seeded: SeededData): Promise<void> {
    const { options } = this;
    for (const filtered of [false, true]) await this.sseFanout(database, svc, bench, seeded, filtered);
    try {
      log(`  webhooks: creates for ${options.realtimeSeconds} s, a fast and a slow (${SLOW_RECEIVER_MS} ms) receiver`);
      const hooks = await measureWebhookThroughput(svc, seeded, bench.adminToken, this.driver, {
        seconds: options.realtimeSeconds,
        connections: options.connections,
        cpu: LOAD_CPU,
        slowDelayMs: SLOW_RECEIVER_MS,
      });
      this.webhooks.push({ database, ...hooks });
      log(
        `    ${hooks.fastPerSecond.toFixed(0)} deliveries/s to the fast receiver, lag p99 ${hooks.fastLagP99Ms.toFixed(0)} ms`,
      );
    } catch (error) {
      this.notes.push(`${database}: webhook throughput not measured: ${(error as Error).message.split('\n')[0]}`);
    }
  }

  addProfile(database: BenchDatabase, scenario: string, dir: string, window: ProfileWindow): void {
    // The main thread is thread 0.
    const file = readdirSync(dir).find((f) => /^CPU\.\d+\.\d+\.\d+\.0\.\d+\.cpuprofile$/.test(f));
    if (!file) {
      this.notes.push(`${database} ${scenario}: no CPU profile was written`);
      return;
    }
    const path = join(dir, file);
    writeFileSync(`${path}.window.json`, JSON.stringify(window));
    // Only the measured run: start-up (module loading) and warm-up would crowd the summary.
    const summary = formatSummary(summarizeProfile(JSON.parse(readFileSync(path, 'utf8')), 20, window));
    this.profiles.push({ database, scenario, file: path, summary });
  }

  /**
   * With both creates profiled, what the webhook delivery adds to a create, per request (issue 5's
   * largest miss); with the hooked create profiled beside the plain one, what a trivial hook adds.
   */
  compareProfiledCreates(database: BenchDatabase): void {
    const fileOf = (scenario: string) =>
      this.profiles.find((p) => p.database === database && p.scenario === scenario)?.file;
    const pairs: [string, string, [string, string]][] = [
      ['create', 'create-no-webhook', ['create', 'no hook']],
      ['create-hooked', 'create', ['hooked', 'create']],
    ];
    for (const [scenario, baseline, labels] of pairs) {
      const [measured, against] = [fileOf(scenario), fileOf(baseline)];
      if (!measured || !against) continue;
      const comparison = compareProfiles(readMeasuredProfile(measured), readMeasuredProfile(against), 20);
      this.profiles.push({
        database,
        scenario: `${scenario} against ${baseline}`,
        file: `${measured} ${against}`,
        summary: formatComparison(comparison, labels),
      });
    }
  }

  /** Grows posts to `growthRows`, re-runs the list scenarios, and times the count alone. */
  async growth(
    database: BenchDatabase,
    bench: BenchConfig,
    seeded: SeededData,
    ceiling: number,
    ceilingCpu: number,
  ): Promise<void> {
    const { rows, growthRows } = this.options;
    this.countCosts.push({ database, ...(await measureCountCost(bench.config, seeded.userId, rows)) });
    log(`  growing posts to ${growthRows} rows`);
    const started = Date.now();
    await growPosts(bench.config, rows, growthRows, seeded.userId);
    log(`  grown in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    this.countCosts.push({ database, ...(await measureCountCost(bench.config, seeded.userId, growthRows)) });
    const svc = await this.startSvc(bench);
    try {
      for (const name of ['list-50', 'filter-sort'] as const) {
        const scenario = SCENARIOS[name];
        const label = `${scenario.label} @ ${growthRows.toLocaleString('en')} rows`;
        const { row } = await this.runScenario(database, { ...scenario, targets: {} }, svc, seeded, label);
        row.ratio = row.requestsPerSecond / ceiling;
        row.cpuRatio = ceilingCpu / row.cpuUsPerRequest;
        const small = this.rows.find((r) => r.database === database && r.scenario === name);
        if (small)
          row.note = `${(small.requestsPerSecond / row.requestsPerSecond).toFixed(2)}x slower than at ${rows.toLocaleString('en')} rows (target: within 2x)`;
        this.rows.push(row);
      }
      log('  keyset pages at depth');
      for (const cost of await measureKeysetCost(bench.config, svc.url, seeded.authorization, growthRows))
        this.keysetCosts.push({ database, ...cost });
    } finally {
      await svc.stop();
    }
  }
}

function pick(result: LoadResult) {
  return {
    requestsPerSecond: result.requestsPerSecond,
    p50Ms: result.p50Ms,
    p99Ms: result.p99Ms,
    errors: result.errors,
    requests: result.requests,
  };
}

/** One request before measuring: a wrong status would make the numbers meaningless. */
async function probe(baseUrl: string, request: ScenarioRequest, authorization: string): Promise<void> {
  const path = request.paths[0]!;
  const response = await fetch(`${baseUrl}${path}`, {
    method: request.method,
    headers: { authorization, 'content-type': 'application/json' },
    ...(request.body ? { body: bodyFor(request.body, 1) } : {}),
  });
  const text = await response.text();
  if (response.status !== request.status)
    throw new Error(
      `${request.method} ${path} answered ${response.status}, expected ${request.status}: ${text.slice(0, 500)}`,
    );
}

function realtimeTables(bench: Bench): string[] {
  const out: string[] = [];
  const f = (n: number, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : '-');
  if (bench.sse.length > 0) {
    out.push(
      '',
      '| db | SSE clients (reader) | filters | writes/s | events received / expected | p50 ms | p99 ms | max ms | write answered p50 / p99 ms | driver: loop lag p99 ms, CPU % | svc flushes: mean ms (over 50 ms) | µs per client write | svc answered 99% of writes within ms | svc RSS start → end (max) MB |',
      '|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
      ...bench.sse.map(
        (r) =>
          `| ${r.database} | ${r.connected}/${r.clients} (${r.reader}) | ${r.filtered ? 'one per client' : 'none (one view)'} | ${r.writesPerSecond} | ${r.received} / ${r.expected} | ${f(r.p50Ms, 1)} | ${f(r.p99Ms, 1)} | ${f(r.maxMs, 1)} | ${f(r.writeP50Ms, 1)} / ${f(r.writeP99Ms, 1)} | ${f(r.driverLagP99Ms, 1)}, ${f(r.driverCpuShare * 100)} | ${r.svc ? `${f(r.svc.meanFlushMs, 1)} (${r.svc.flushesOver50ms} of ${r.svc.flushes})` : '-'} | ${f(r.svc?.usPerWrite ?? NaN, 1)} | ${f(r.svc?.createP99UpToMs ?? NaN)} | ${f(r.rssStartMb)} → ${f(r.rssEndMb)} (${f(r.rssMaxMb)}) |`,
      ),
    );
  }
  if (bench.webhooks.length > 0) {
    out.push(
      '',
      '| db | creates/s | fast receiver deliveries/s | fast: event → delivered p50 / p99 ms | fast: last delivery after load ended ms | slow receiver deliveries (answers in 1 s) | worker alone: backlog drained/s | svc peak RSS MB |',
      '|---|---:|---:|---:|---:|---:|---:|---:|',
      ...bench.webhooks.map(
        (r) =>
          `| ${r.database} | ${f(r.createsPerSecond)} | ${f(r.fastPerSecond)} (${r.fastDelivered}/${r.creates}) | ${f(r.fastLagP50Ms)} / ${f(r.fastLagP99Ms)} | ${f(r.drainMs)} | ${r.slowDelivered} | ${f(r.backlogPerSecond)} (${r.backlog} queued) | ${f(r.rssMaxMb)} |`,
      ),
    );
  }
  return out.length > 0 ? [...out, ''] : out;
}

async function main(): Promise<number> {
  const parsed = parseBenchOptions(process.argv.slice(2), process.env);
  if ('help' in parsed) {
    process.stdout.write(`${parsed.help}\n`);
    return 0;
  }
  if (!hasCommand('taskset')) throw new Error('taskset (util-linux) is required to pin processes to cores');
  const driver =
    parsed.driver === 'autocannon' || (!parsed.driver && !hasCommand('wrk')) ? autocannonDriver : wrkDriver;
  // Read before pinning: a pinned process sees one core.
  const machine = machineInfo(driver.name);
  // The runner (seeding, webhook receiver) stays off svc's core.
  execFileSync('taskset', ['-p', '-c', String(LOAD_CPU), String(process.pid)], { stdio: 'ignore' });
  process.env.SVC_SECRET ??= randomBytes(32).toString('hex');
  const bench = new Bench(parsed, driver);
  const started = Date.now();
  log(
    `svc benchmark: ${parsed.databases.join(' + ')}; ${parsed.scenarios.join(', ')}; ${parsed.connections} connections, ${parsed.warmup}+${parsed.duration} s each; ${driver.name}`,
  );
  for (const database of parsed.databases) await bench.runDatabase(database);

  const output = [
    `command: npm run bench -- ${process.argv.slice(2).join(' ')}`.trimEnd(),
    ...machine,
    `svc pinned to CPU ${SERVER_CPU}, load generator to CPU ${LOAD_CPU}; ${parsed.connections} connections; ${parsed.warmup} s warm-up + ${parsed.duration} s measured per scenario; ${parsed.rows} posts`,
    '',
    resultTable(bench.rows),
    '',
    ...bench.notes.map((n) => `- ${n}`),
    ...bench.rows.filter((r) => r.note).map((r) => `- ${r.database} ${r.scenario}: ${r.note}`),
    ...realtimeTables(bench),
    ...bench.countCosts.map(
      (c) =>
        `- ${c.database} @ ${c.rows} rows: count(*) for the filter ${c.countMs.toFixed(2)} ms; page query alone ${c.pageMs.toFixed(2)} ms (medians)`,
    ),
    ...bench.keysetCosts.map(
      (k) =>
        `- ${k.database} @ ${k.rows} rows, keyset page ${k.order}: after a cursor at the start ${k.firstMs.toFixed(2)} ms, at depth ${k.depth} ${k.deepMs.toFixed(2)} ms: deep/first ${(k.deepMs / k.firstMs).toFixed(2)} (medians; target: within 2x)`,
    ),
    ...bench.bulkCosts.map((b) => formatBulkCost(b.database, b)),
    ...bench.slowHookCosts.map((c) => formatSlowHookCost(c.database, c)),
    ...bench.searchCosts.map(formatSearchCost),
    ...bench.aggregateCosts.map(formatAggregateCost),
    `- total run time ${((Date.now() - started) / 1000).toFixed(0)} s; load average at the end ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  ];
  for (const profile of bench.profiles)
    output.push(
      '',
      `### profile: ${profile.database} ${profile.scenario} (${profile.file})`,
      '```',
      profile.summary,
      '```',
    );
  process.stdout.write(`\n${output.join('\n')}\n`);
  if (parsed.json) {
    mkdirSync(join(parsed.json, '..'), { recursive: true });
    writeFileSync(
      parsed.json,
      JSON.stringify(
        {
          rows: bench.rows,
          notes: bench.notes,
          countCosts: bench.countCosts,
          keysetCosts: bench.keysetCosts,
          searchCosts: bench.searchCosts,
          aggregateCosts: bench.aggregateCosts,
          bulkCosts: bench.bulkCosts,
          slowHookCosts: bench.slowHookCosts,
          sse: bench.sse,
          webhooks: bench.webhooks,
          profiles: bench.profiles,
        },
        null,
        2,
      ),
    );
  }
  return bench.rows.some((r) => r.errors > 0) ? 1 : 0;
}

process.exitCode = await main();
