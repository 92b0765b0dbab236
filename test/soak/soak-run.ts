// A bounded soak of a real `svc start` process on loopback: writers (create, patch, delete), readers
// (lists and gets), stream clients and a webhook receiver at once, then an audit that every write's
// event reached every stream client and the receiver exactly once, and RSS at start and end.
// Used by soak.test.ts (short, in CI) and soak-cli.ts (`npm run soak`, minutes).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { SseClient } from '../helpers/sse-client.ts';
import { SvcProcess, writeConfigFile } from '../helpers/svc-process.ts';

const SVC = join(import.meta.dirname, '../../bin/svc.js');
const ADMIN = 'soak-admin-token-0123456789abcdef';
const PASSWORD = 'correct horse battery staple';

export interface SoakOptions {
  databaseUrl: string;
  seconds: number;
  streamClients: number;
  writers: number;
  readers: number;
  progress?: (line: string) => void;
}

export interface SoakReport {
  seconds: number;
  requests: number;
  /** Statuses other than the expected 2xx, by status. */
  failures: Record<string, number>;
  writes: { created: number; updated: number; deleted: number };
  events: number;
  streamClients: number;
  /** Per client: expected events not received, and events received more than once. */
  streamMissing: number;
  streamDuplicates: number;
  /** Event ids a client has that the receiver has not, or the other way round (summed over clients). */
  streamMismatch: number;
  webhookMissing: number;
  webhookDuplicates: number;
  rssMb: { start: number; end: number; max: number };
}

function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Math.round(Number(match[1]) / 1024) : 0;
}

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const say = options.progress ?? (() => {});
  const env = { SVC_SECRET: 'soak-secret-0123456789abcdef0123', LOG_LEVEL: 'warn' };
  const configFile = writeConfigFile({
    database: { url: options.databaseUrl },
    adminToken: ADMIN,
    apiKeys: { rateLimit: { enabled: true, max: 100_000_000, timeWindow: 60_000 } },
    webhooks: { allowPrivateTargets: true, pollIntervalMs: 100 },
    // Every stream client uses the one key; the default of 10 streams per key is for real clients.
    stream: { maxPerKey: Math.max(10, options.streamClients) },
    resources: {
      posts: {
        fields: {
          title: { type: 'string', required: true, sortable: true },
          views: { type: 'integer', default: 0, sortable: true },
        },
        permissions: { editor: { read: true, create: true, update: true, delete: true } },
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
      'soak@soak.test',
      '--password',
      PASSWORD,
      '--role',
      'editor',
    ],
    {
      encoding: 'utf8',
      env: { ...process.env, ...env },
      timeout: 60_000,
    },
  );
  if (created.status !== 0) throw new Error(`users create failed: ${created.stderr}`);

  const delivered = new Map<string, number>();
  const receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const id = String(request.headers['webhook-id']);
      delivered.set(id, (delivered.get(id) ?? 0) + 1);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverAddress = receiver.address();
  const receiverUrl = `http://127.0.0.1:${typeof receiverAddress === 'object' && receiverAddress ? receiverAddress.port : 0}/hook`;

  const node = await SvcProcess.start(configFile, env);
  const clients: SseClient[] = [];
  try {
    const base = node.baseUrl;
    const key = (
      (await (
        await fetch(`${base}/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'soak@soak.test', password: PASSWORD }),
        })
      ).json()) as { key: string }
    ).key;
    const auth = { authorization: `Bearer ${key}` };
    const hook = await fetch(`${base}/admin/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'soak', url: receiverUrl, eventPattern: 'posts.*' }),
    });
    if (hook.status !== 201) throw new Error(`webhook create failed: ${hook.status}`);
    for (let i = 0; i < options.streamClients; i++)
      clients.push(await SseClient.connect(`${base}/v1/posts/stream`, { headers: auth }));
    for (const client of clients)
      await client.waitFor((b) => b.comments.includes('connected'), { what: 'connected', timeoutMs: 10_000 });

    const rssStart = rssMb(node.child.pid!);
    let rssMax = rssStart;
    const sampler = setInterval(() => {
      rssMax = Math.max(rssMax, rssMb(node.child.pid!));
    }, 500);
    say(
      `soak: ${options.seconds} s, ${options.writers} writers, ${options.readers} readers, ${options.streamClients} stream clients; RSS ${rssStart} MB`,
    );

    const failures: Record<string, number> = {};
    const writes = { created: 0, updated: 0, deleted: 0 };
    const live: string[] = [];
    let requests = 0;
    const call = async (method: string, path: string, expected: number, body?: unknown): Promise<Response | null> => {
      requests++;
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(30_000),
      });
      if (response.status !== expected) {
        failures[response.status] = (failures[response.status] ?? 0) + 1;
        await response.arrayBuffer();
        return null;
      }
      return response;
    };
    const until = Date.now() + options.seconds * 1000;
    const writer = async (w: number) => {
      for (let n = 0; Date.now() < until; n++) {
        const made = await call('POST', '/v1/posts', 201, { title: `w${w} n${n}` });
        if (!made) continue;
        writes.created++;
        const id = ((await made.json()) as { data: { id: string } }).data.id;
        const patched = await call('PATCH', `/v1/posts/${id}`, 200, { views: n + 1 });
        if (!patched) continue;
        await patched.arrayBuffer();
        writes.updated++;
        if (n % 3 === 0) {
          if (await call('DELETE', `/v1/posts/${id}`, 204)) writes.deleted++;
        } else live.push(id);
      }
    };
    const reader = async () => {
      while (Date.now() < until) {
        const list = await call('GET', '/v1/posts?_sort=-views&_limit=20', 200);
        await list?.arrayBuffer();
        const id = live[Math.floor(Math.random() * live.length)];
        if (id) await (await call('GET', `/v1/posts/${id}`, 200))?.arrayBuffer();
      }
    };
    await Promise.all([
      ...Array.from({ length: options.writers }, (_, w) => writer(w)),
      ...Array.from({ length: options.readers }, () => reader()),
    ]);

    const events = writes.created + writes.updated + writes.deleted;
    say(`soak: load done (${requests} requests, ${events} events); waiting for streams and webhooks to drain`);
    const drainUntil = Date.now() + 60_000;
    const settled = () => clients.every((c) => c.events.length >= events) && delivered.size >= events;
    while (!settled() && Date.now() < drainUntil) await new Promise((resolve) => setTimeout(resolve, 200));
    await new Promise((resolve) => setTimeout(resolve, 500));
    clearInterval(sampler);
    const rssEnd = rssMb(node.child.pid!);

    // Every acknowledged write is one event: each client and the receiver must have that many distinct
    // event ids, the same ones, each once.
    let streamMissing = 0;
    let streamDuplicates = 0;
    let streamMismatch = 0;
    const reference = new Set(delivered.keys());
    for (const client of clients) {
      const ids = client.events.map((e) => e.id ?? '');
      const seen = new Set(ids);
      streamDuplicates += ids.length - seen.size;
      streamMissing += Math.max(0, events - seen.size);
      for (const id of reference) if (!seen.has(id)) streamMismatch++;
      for (const id of seen) if (!reference.has(id)) streamMismatch++;
    }
    const webhookDuplicates = [...delivered.values()].filter((count) => count > 1).length;
    const webhookMissing = Math.max(0, events - delivered.size);
    return {
      seconds: options.seconds,
      requests,
      failures,
      writes,
      events,
      streamClients: clients.length,
      streamMissing,
      streamDuplicates,
      streamMismatch,
      webhookMissing,
      webhookDuplicates,
      rssMb: { start: rssStart, end: rssEnd, max: rssMax },
    };
  } finally {
    for (const client of clients) client.close();
    await node.stop('SIGTERM');
    receiver.close();
  }
}
