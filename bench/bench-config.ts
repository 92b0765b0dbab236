// The configuration svc runs with during the benchmark: one `posts` resource and an `author` role with
// field lists, a read filter that depends on the caller, and a preset, so permissions cost what they
// cost in production. Rate limiting stays on (its bookkeeping is measured) with a ceiling no run reaches.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResourceDefinition, SvcConfig } from '../src/config/config-types.ts';
import { loadConfigFromObject } from '../src/resources/config-loader.ts';
import { SLOW_HOOK_MS } from './slow-hook-cost.ts';

export const BENCH_ROLE = 'author';

export const BENCH_RESOURCES: Record<string, ResourceDefinition> = {
  posts: {
    enableSoftDelete: true,
    fields: {
      title: { type: 'string', required: true, maxLength: 200, sortable: true },
      body: { type: 'text' },
      status: { type: 'enum', values: ['draft', 'published'], default: 'draft', sortable: true },
      views: { type: 'integer', minimum: 0, default: 0, sortable: true },
      rating: { type: 'number' },
      published: { type: 'boolean', default: false, sortable: true },
      published_at: { type: 'datetime', sortable: true },
      tags: { type: 'json' },
      author_id: { type: 'string' },
    },
    permissions: {
      [BENCH_ROLE]: {
        read: {
          fields: ['title', 'body', 'status', 'views', 'published', 'published_at', 'tags', 'author_id'],
          filter: { _or: [{ published: { eq: true } }, { author_id: { eq: '$userId' } }] },
        },
        create: {
          fields: ['title', 'body', 'status', 'views', 'published', 'published_at', 'tags'],
          preset: { author_id: '$userId' },
        },
        update: {
          fields: ['title', 'body', 'status', 'views', 'published', 'published_at', 'tags'],
          filter: { author_id: { eq: '$userId' } },
        },
      },
    },
  },
};

export interface BenchConfig {
  config: SvcConfig;
  /** The same configuration as a file for `svc start --config`. */
  file: string;
  /**
   * The same again with `hooks:` naming a file whose posts.beforeCreate is trivial (scenario create-hooked),
   * but for posts titled "slow …", which it holds SLOW_HOOK_MS (bench/slow-hook-cost.ts).
   */
  hookedFile: string;
  adminToken: string;
  dataDir: string;
}

export function writeBenchConfig(databaseUrl: string): BenchConfig {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const adminToken = `bench-admin-${randomBytes(16).toString('hex')}`;
  const raw = {
    database: { url: databaseUrl },
    server: { port: 0, host: '127.0.0.1', cors: { origins: [] }, bodyLimitBytes: 1048576 },
    adminToken,
    auth: {
      basePath: '/auth',
      requireEmailVerification: false,
      defaultRole: 'user',
      social: {},
      email: { from: 'svc <no-reply@localhost>' },
    },
    apiKeys: { rateLimit: { enabled: true, max: 1_000_000_000, timeWindow: 60_000 } },
    // One key opens all of the fan-out's streams, where a deployment would see a key per client: its
    // per-key bound (10 by default) is lifted for it, or the 11th stream is refused.
    stream: { heartbeatMs: 30_000, retryMs: 3000, allowQueryToken: true, replayWindow: 10_000, maxPerKey: 5000 },
    // A long timeout: the backlog measurement holds deliveries unanswered for several seconds.
    webhooks: { timeoutMs: 30_000, allowPrivateTargets: true, pollIntervalMs: 50 },
    dataDir,
    resources: BENCH_RESOURCES,
  };
  // Through the real validator: the bench must only run configurations svc accepts.
  const config = loadConfigFromObject(JSON.parse(JSON.stringify(raw)));
  const file = join(dataDir, 'bench.config.json');
  writeFileSync(file, JSON.stringify(raw, null, 2));
  // A plain object export (no import of 'svc', which the bench's temporary folder cannot resolve).
  writeFileSync(
    join(dataDir, 'bench.hooks.mjs'),
    // A post titled "slow …" waits in its transaction (bench/slow-hook-cost.ts); others pay one test.
    `export default { posts: { beforeCreate({ values }) { values.body ??= null; if (typeof values.title === 'string' && values.title.startsWith('slow ')) return new Promise((r) => setTimeout(r, ${SLOW_HOOK_MS})); } } };\n`,
  );
  const hookedFile = join(dataDir, 'bench-hooked.config.json');
  writeFileSync(hookedFile, JSON.stringify({ ...raw, hooks: './bench.hooks.mjs' }, null, 2));
  return { config, file, hookedFile, adminToken, dataDir };
}
