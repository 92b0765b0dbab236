// Bulk creates: 1,000 posts as 1,000 single POSTs against the same 1,000 as 10 POST /v1/operations of
// 100 adds each, one request at a time through the same client (fetch, keep-alive), so the difference
// is what a request and its own transaction cost per record. `npm run bench` runs it on each database;
// alone, against a svc started here on a fresh SQLite file or on DATABASE_URL:
//   node --import tsx bench/bulk-cost.ts [records] [batch]
import { fileURLToPath } from 'node:url';

export interface BulkCost {
  records: number;
  batch: number;
  singleMs: number;
  batchedMs: number;
}

const ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';

function post(i: number, run: string): Record<string, unknown> {
  return {
    title: `Bulk ${run} ${i}`,
    body: 'Lorem ipsum dolor sit amet. '.repeat(4),
    views: i,
    published: i % 2 === 0,
  };
}

async function expectStatus(response: Response, status: number): Promise<void> {
  const text = await response.text();
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${text.slice(0, 300)}`);
}

async function singles(url: string, authorization: string, records: number, run: string): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < records; i++) {
    const response = await fetch(`${url}/v1/posts`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify(post(i, run)),
    });
    await expectStatus(response, 201);
  }
  return performance.now() - started;
}

async function batches(
  url: string,
  authorization: string,
  records: number,
  batch: number,
  run: string,
): Promise<number> {
  const started = performance.now();
  for (let first = 0; first < records; first += batch) {
    const operations = [];
    for (let i = first; i < Math.min(records, first + batch); i++)
      operations.push({ op: 'add', data: { type: 'posts', attributes: post(i, run) } });
    const response = await fetch(`${url}/v1/operations`, {
      method: 'POST',
      headers: { authorization, 'content-type': ATOMIC },
      body: JSON.stringify({ 'atomic:operations': operations }),
    });
    await expectStatus(response, 200);
  }
  return performance.now() - started;
}

/** The median of three rounds of each, alternating, after one small warm-up round of each. */
export async function measureBulkCost(
  url: string,
  authorization: string,
  records = 1000,
  batch = 100,
): Promise<BulkCost> {
  await singles(url, authorization, 50, 'warm');
  await batches(url, authorization, 100, batch, 'warm');
  const single: number[] = [];
  const batched: number[] = [];
  for (let round = 0; round < 3; round++) {
    single.push(await singles(url, authorization, records, `s${round}`));
    batched.push(await batches(url, authorization, records, batch, `b${round}`));
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[1]!;
  return { records, batch, singleMs: median(single), batchedMs: median(batched) };
}

export function formatBulkCost(database: string, cost: BulkCost): string {
  return (
    `- ${database}: ${cost.records.toLocaleString('en')} creates as single POSTs ${cost.singleMs.toFixed(0)} ms, ` +
    `as POST /v1/operations of ${cost.batch} ${cost.batchedMs.toFixed(0)} ms: ${(cost.singleMs / cost.batchedMs).toFixed(1)}x (medians of 3; target: >= 10x)`
  );
}

async function standalone(): Promise<void> {
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { randomBytes } = await import('node:crypto');
  const { writeBenchConfig } = await import('./bench-config.ts');
  const { seed } = await import('./seed.ts');
  const { buildApp } = await import('../src/server.ts');
  process.env.SVC_SECRET ??= randomBytes(32).toString('hex');
  const dir = mkdtempSync(join(tmpdir(), 'svc-bulk-'));
  const databaseUrl = process.env.DATABASE_URL ?? `sqlite:${join(dir, 'bench.db')}`;
  const bench = writeBenchConfig(databaseUrl);
  const seeded = await seed(bench.config, 100);
  const { app } = await buildApp({
    config: { ...bench.config, server: { ...bench.config.server, port: 0, host: '127.0.0.1' } },
  });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const [records, batch] = process.argv.slice(2).map(Number);
    const cost = await measureBulkCost(address, seeded.authorization, records || 1000, batch || 100);
    process.stdout.write(`${formatBulkCost(databaseUrl.startsWith('sqlite') ? 'sqlite' : 'postgres', cost)}\n`);
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await standalone();
