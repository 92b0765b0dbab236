// A fresh database per run: a temporary SQLite file, or a new PostgreSQL database dropped afterwards.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { BenchDatabase } from './bench-options.ts';

export interface FreshDatabase {
  kind: BenchDatabase;
  url: string;
  drop(): Promise<void>;
}

function withDatabase(base: string, name: string): string {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function createFreshDatabase(
  kind: BenchDatabase,
  postgresUrl: string | undefined,
): Promise<FreshDatabase> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'svc-bench-db-'));
    return {
      kind,
      url: `sqlite:${join(dir, 'bench.db')}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  if (!postgresUrl) throw new Error('BENCH_DATABASE_URL is not set');
  const name = `svc_bench_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: withDatabase(postgresUrl, 'postgres') });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  return {
    kind,
    url: withDatabase(postgresUrl, name),
    async drop() {
      const client = new pg.Client({ connectionString: withDatabase(postgresUrl, 'postgres') });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}
