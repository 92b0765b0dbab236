// Opens a PostgreSQL pool. Dates (type 1082) stay YYYY-MM-DD strings; counts (int8) become numbers;
// timestamptz (1184) still becomes a Date (the identity component and others expect one), parsed faster.
import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import type { DynamicSchema } from '../store-dialect.ts';
import { NamingClient } from './naming-client.ts';
import { timestamptzParser } from './parse-timestamptz.ts';

const TIMESTAMPTZ = 1184;
pg.types.setTypeParser(TIMESTAMPTZ, timestamptzParser(pg.types.getTypeParser(TIMESTAMPTZ, 'text') as (text: string) => unknown));
pg.types.setTypeParser(1082, (value: string) => value);
pg.types.setTypeParser(20, (value: string) => Number(value));

export function openPostgres(url: string, max = 10): { db: Kysely<DynamicSchema>; pool: pg.Pool } {
  // A server that does not answer (a partition, not a refusal) must fail requests with 503, not hang them.
  const pool = new pg.Pool({ connectionString: url, max, Client: NamingClient, connectionTimeoutMillis: 5000 });
  // An idle client losing its connection (server restart) must not crash the process.
  pool.on('error', () => {});
  const db = new Kysely<DynamicSchema>({ dialect: new PostgresDialect({ pool }) });
  return { db, pool };
}
