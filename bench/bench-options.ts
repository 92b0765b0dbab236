// `npm run bench` options: which databases and scenarios, how long and how hard to drive each one.
import { parseArgs } from 'node:util';
import { SCENARIO_NAMES, type ScenarioName } from './scenarios.ts';

export type BenchDatabase = 'sqlite' | 'postgres';

export interface BenchOptions {
  databases: BenchDatabase[];
  scenarios: ScenarioName[];
  /** Seconds measured per scenario (after a warm-up of `warmup` seconds). */
  duration: number;
  warmup: number;
  connections: number;
  /** Rows seeded before the scenarios. */
  rows: number;
  /** Also grow the table to this many rows and re-measure the list scenarios (0: skip). */
  growthRows: number;
  /** Rows of the full-text search cost measurement (bench/search-cost.ts; 0: skip). */
  searchRows: number;
  /** Run svc under `node --cpu-prof` for these scenarios and summarise the profile. */
  profile: boolean;
  /** Profile the TypeScript sources (per-module names) instead of the bundle `npm start` runs. */
  profileSources: boolean;
  /** Force a load generator instead of picking wrk when installed. */
  driver: 'wrk' | 'autocannon' | undefined;
  /** SSE fan-out and webhook throughput after the request scenarios (0 clients: skip). */
  sseClients: number;
  sseWritesPerSecond: number;
  /** Who reads the SSE clients' streams: bench/sse-reader.c (built when a C compiler can) or Node. */
  sseReader: 'native' | 'node';
  realtimeSeconds: number;
  /** PostgreSQL server to create a fresh database on. */
  postgresUrl: string | undefined;
  /** Write the results as JSON here. */
  json: string | undefined;
}

const USAGE = `Usage: npm run bench -- [options]
  --db sqlite|postgres|both    databases to run (default: both when BENCH_DATABASE_URL or TEST_DATABASE_URL is set, else sqlite)
  --scenarios a,b              subset of: ${SCENARIO_NAMES.join(', ')}
  --duration S                 seconds measured per scenario (default 7)
  --warmup S                   seconds of warm-up before each measurement (default 1)
  --connections N              concurrent connections (default 32)
  --rows N                     posts seeded (default 10000)
  --growth N                   afterwards grow posts to N rows, re-run the list scenarios and time keyset
                               pages at 90% depth against the first (default off)
  --search-rows N              rows of the _search against filter-list and the aggregate against GROUP BY
                               costs (default 1000000, the issues' size; seeding takes a few minutes; 0 skips)
  --sse-clients N              SSE clients in the fan-out measurement (default 1000; 0 skips SSE and webhooks)
  --sse-rate N                 writes per second during the fan-out (default 200)
  --sse-reader native|node     who reads the SSE clients: bench/sse-reader.c, built with $CC or cc
                               (default; Node when it cannot be built), or Node in the driver's process
  --realtime-seconds S         seconds of SSE fan-out and of webhook load (default 8)
  --profile                    run svc under node --cpu-prof and print a self-time summary per scenario
  --profile-sources            profile svc run from src/ through tsx: names each module, but its larger
                               heap inflates garbage collection (implies --profile)
  --driver wrk|autocannon      load generator (default: wrk when installed)
  --json FILE                  also write the results as JSON
Environment: BENCH_DATABASE_URL (PostgreSQL server to create the bench database on),
  BENCH_SVC_NODE_OPTIONS (NODE_OPTIONS for svc alone, e.g. --max-semi-space-size=8)`;

function positiveInt(name: string, text: string | undefined, fallback: number, min = 1): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) throw new Error(`--${name} must be an integer >= ${min}, got ${text}`);
  return value;
}

export function parseBenchOptions(argv: string[], env: NodeJS.ProcessEnv): BenchOptions | { help: string } {
  const { values } = parseArgs({
    args: argv,
    options: {
      db: { type: 'string' },
      scenarios: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      rows: { type: 'string' },
      growth: { type: 'string' },
      'search-rows': { type: 'string' },
      profile: { type: 'boolean' },
      'profile-sources': { type: 'boolean' },
      'sse-clients': { type: 'string' },
      'sse-rate': { type: 'string' },
      'sse-reader': { type: 'string' },
      'realtime-seconds': { type: 'string' },
      driver: { type: 'string' },
      json: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return { help: USAGE };
  const postgresUrl = env.BENCH_DATABASE_URL || env.TEST_DATABASE_URL || undefined;
  const db = values.db ?? (postgresUrl ? 'both' : 'sqlite');
  if (!['sqlite', 'postgres', 'both'].includes(db)) throw new Error(`--db must be sqlite, postgres or both, got ${db}`);
  const databases: BenchDatabase[] = db === 'both' ? ['sqlite', 'postgres'] : [db as BenchDatabase];
  if (databases.includes('postgres') && !postgresUrl)
    throw new Error('PostgreSQL needs BENCH_DATABASE_URL (or TEST_DATABASE_URL)');
  const scenarios =
    values.scenarios === undefined ? [...SCENARIO_NAMES] : values.scenarios.split(',').map((s) => s.trim());
  for (const name of scenarios) {
    if (!(SCENARIO_NAMES as readonly string[]).includes(name))
      throw new Error(`unknown scenario ${name}; known: ${SCENARIO_NAMES.join(', ')}`);
  }
  if (values.driver !== undefined && values.driver !== 'wrk' && values.driver !== 'autocannon') {
    throw new Error(`--driver must be wrk or autocannon, got ${values.driver}`);
  }
  const sseReader = values['sse-reader'] ?? 'native';
  if (sseReader !== 'native' && sseReader !== 'node')
    throw new Error(`--sse-reader must be native or node, got ${sseReader}`);
  return {
    databases,
    scenarios: scenarios as ScenarioName[],
    duration: positiveInt('duration', values.duration, 7),
    warmup: positiveInt('warmup', values.warmup, 1, 0),
    connections: positiveInt('connections', values.connections, 32),
    rows: positiveInt('rows', values.rows, 10_000),
    growthRows: positiveInt('growth', values.growth, 0, 0),
    searchRows: positiveInt('search-rows', values['search-rows'], 1_000_000, 0),
    profile: values.profile === true || values['profile-sources'] === true,
    profileSources: values['profile-sources'] === true,
    sseClients: positiveInt('sse-clients', values['sse-clients'], 1000, 0),
    sseWritesPerSecond: positiveInt('sse-rate', values['sse-rate'], 200),
    sseReader,
    realtimeSeconds: positiveInt('realtime-seconds', values['realtime-seconds'], 8),
    driver: values.driver as BenchOptions['driver'],
    postgresUrl,
    json: values.json,
  };
}
