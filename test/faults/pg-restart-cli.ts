// A real PostgreSQL restart under load (issue 6), for a machine where nothing else uses the server:
// the CI suite cuts PostgreSQL with a proxy instead (postgres-outage.test.ts), since a restart would
// break the other suites running beside it. Run as root on the PostgreSQL host:
//   npm run fault:pg-restart [-- --url postgres://postgres@127.0.0.1:5432/postgres --down-seconds 3]
// A real `svc start` process on a fresh database; 4 writers and 2 readers as fast as they can;
// `pg_ctlcluster … stop`, a pause, `start`; then an audit. Exits 1 if any check fails.
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { SvcProcess, writeConfigFile } from '../helpers/svc-process.ts';

const SVC = join(import.meta.dirname, '../../bin/svc.js');
const ADMIN = 'restart-admin-token-0123456789abcdef';
const PASSWORD = 'correct horse battery staple';
const ENV = { SVC_SECRET: 'restart-secret-0123456789abcdef0', LOG_LEVEL: 'warn' };

const { values } = parseArgs({
  options: {
    url: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    'down-seconds': { type: 'string', default: '3' },
  },
});
const serverUrl = values.url!;
const downMs = Number(values['down-seconds']) * 1000;
const cluster = readdirSync('/etc/postgresql')[0]!;
const pgctl = (action: string) =>
  execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', cluster, 'main', action], { stdio: 'inherit' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const admin = new pg.Client({ connectionString: serverUrl });
await admin.connect();
const dbName = `svc_pg_restart_${process.pid}`;
await admin.query(`create database ${dbName}`);
await admin.end();
const databaseUrl = serverUrl.replace(/\/[^/]*$/, `/${dbName}`);

const configFile = writeConfigFile({
  database: { url: databaseUrl },
  adminToken: ADMIN,
  apiKeys: { rateLimit: { enabled: true, max: 100_000_000, timeWindow: 60_000 } },
  resources: {
    posts: {
      fields: { title: { type: 'string', required: true, sortable: true } },
      permissions: { editor: { read: true, create: true } },
    },
  },
});
const created = spawnSync(
  process.execPath,
  [
    SVC,
    'users',
    'create',
    '--config',
    configFile,
    '--email',
    'r@restart.test',
    '--password',
    PASSWORD,
    '--role',
    'editor',
  ],
  {
    encoding: 'utf8',
    env: { ...process.env, ...ENV },
    timeout: 60_000,
  },
);
if (created.status !== 0) throw new Error(`users create failed: ${created.stderr}`);
const node = await SvcProcess.start(configFile, ENV);
const base = node.baseUrl;
const key = (
  (await (
    await fetch(`${base}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'r@restart.test', password: PASSWORD }),
    })
  ).json()) as { key: string }
).key;
const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

const statuses = new Map<string, number>();
const createdIds: string[] = [];
const timeline: { at: number; ok: boolean }[] = [];
const started = Date.now();
let running = true;
let downAt = 0;
let upAt = 0;
const count = (label: string) => statuses.set(label, (statuses.get(label) ?? 0) + 1);

async function client(kind: 'write' | 'read', n: number): Promise<void> {
  for (let i = 0; running; i++) {
    try {
      const response =
        kind === 'write'
          ? await fetch(`${base}/v1/posts`, {
              method: 'POST',
              headers,
              body: JSON.stringify({ title: `w${n}-${i}` }),
              signal: AbortSignal.timeout(15_000),
            })
          : await fetch(`${base}/v1/posts?_sort=-title&_limit=5`, { headers, signal: AbortSignal.timeout(15_000) });
      const body = await response.text();
      const jsonApi = (response.headers.get('content-type') ?? '').startsWith('application/vnd.api+json');
      count(`${kind} ${response.status}${jsonApi ? '' : ' (not JSON:API)'}`);
      if (response.status === 503 && !body.includes('SERVICE_UNAVAILABLE'))
        count(`${kind} 503 without SERVICE_UNAVAILABLE`);
      if (kind === 'write' && response.status === 201)
        createdIds.push((JSON.parse(body) as { data: { id: string } }).data.id);
      timeline.push({ at: Date.now(), ok: response.status < 300 });
    } catch (error) {
      count(`${kind} ${(error as Error).name}`);
      await sleep(50);
    }
    if (timeline.at(-1)?.ok === false) await sleep(20);
  }
}

const readiness: string[] = [];
const readyLoop = (async () => {
  while (running) {
    const response = await fetch(`${base}/readyz`).catch(() => undefined);
    const label = String(response?.status ?? 'error');
    if (readiness.at(-1) !== label) readiness.push(label);
    await sleep(200);
  }
})();

const clients = [...[0, 1, 2, 3].map((n) => client('write', n)), ...[0, 1].map((n) => client('read', n))];
await sleep(3000);
downAt = Date.now();
console.log(`${((downAt - started) / 1000).toFixed(1)} s: stopping PostgreSQL (${cluster} main)`);
pgctl('stop');
await sleep(downMs);
pgctl('start');
upAt = Date.now();
console.log(`${((upAt - started) / 1000).toFixed(1)} s: PostgreSQL started again`);
await sleep(6000);
running = false;
await Promise.all([...clients, readyLoop]);
await node.stop();

// Audit: every 201 is a row with its event, and no row lacks its event.
const audit = new pg.Client({ connectionString: databaseUrl });
await audit.connect();
const rows = (await audit.query<{ id: string }>('select id from posts')).rows.map((r) => r.id);
const events = (
  await audit.query<{ resource_id: string }>(
    `select resource_id from svc_events where resource = 'posts' and type = 'posts.created'`,
  )
).rows.map((r) => r.resource_id);
await audit.end();
const rowSet = new Set(rows);
const eventSet = new Set(events);
const lost = createdIds.filter((id) => !rowSet.has(id));
const withoutEvent = rows.filter((id) => !eventSet.has(id));
const firstOkAfterUp = timeline.find((t) => t.at >= upAt && t.ok);
const failuresAfterRecovery = firstOkAfterUp
  ? timeline.filter((t) => t.at > firstOkAfterUp.at + 1000 && !t.ok).length
  : -1;

const report = {
  outageMs: upAt - downAt,
  statuses: Object.fromEntries([...statuses].sort()),
  readiness: readiness.join(' -> '),
  createdAnswered201: createdIds.length,
  rows: rows.length,
  lostCreates: lost.length,
  rowsWithoutEvent: withoutEvent.length,
  firstSuccessAfterStartMs: firstOkAfterUp ? firstOkAfterUp.at - upAt : null,
  failuresMoreThan1sAfterRecovery: failuresAfterRecovery,
};
console.log(JSON.stringify(report, null, 2));

const drop = new pg.Client({ connectionString: serverUrl });
await drop.connect();
await drop.query(`drop database if exists ${dbName} with (force)`);
await drop.end();

const bad = [...statuses.keys()].filter((label) => !/ (200|201|503)$/.test(label));
const ok =
  bad.length === 0 &&
  lost.length === 0 &&
  withoutEvent.length === 0 &&
  firstOkAfterUp !== undefined &&
  failuresAfterRecovery === 0 &&
  readiness.includes('503');
console.log(ok ? 'PASS' : `FAIL${bad.length ? `: unexpected answers ${bad.join(', ')}` : ''}`);
process.exit(ok ? 0 : 1);
