// Fresh databases for tests: a SQLite file always, a PostgreSQL database when TEST_DATABASE_URL is set.
// Every suite that touches the database loops over testDialects().
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export type TestDialect = 'sqlite' | 'postgres';

export interface TestDatabase {
  dialect: TestDialect;
  url: string;
  drop(): Promise<void>;
}

let warned = false;

export function testDialects(): TestDialect[] {
  if (process.env.TEST_DATABASE_URL) return ['sqlite', 'postgres'];
  // `npm test` says it once for the whole run; a file run alone says it itself.
  if (!warned && process.env.SVC_TEST_RUNNER !== '1') {
    warned = true;
    process.stdout.write('# SKIP PostgreSQL suites: TEST_DATABASE_URL is not set\n');
  }
  return ['sqlite'];
}

function adminUrl(base: string): string {
  const url = new URL(base);
  url.pathname = '/postgres';
  return url.toString();
}

export async function createTestDatabase(dialect: TestDialect): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'svc-test-'));
    return {
      dialect,
      url: `sqlite:${join(dir, 'data.db')}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const base = process.env.TEST_DATABASE_URL;
  if (!base) throw new Error('TEST_DATABASE_URL is not set');
  // With PostgreSQL the identity component's secret must be given (docs/configuration.md); tests make one up.
  process.env.SVC_SECRET ??= randomBytes(32).toString('base64url');
  const name = `svc_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl(base) });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    dialect,
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl(base) });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}
