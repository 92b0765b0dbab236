// Opens a PostgreSQL pool. Dates (type 1082) stay YYYY-MM-DD strings; counts (int8) become numbers;
// timestamptz (1184) still becomes a Date (the identity component and others expect one), parsed faster.
import type pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import { loadPg } from '../../tools/optional-packages.ts';
import type { DynamicSchema } from '../store-dialect.ts';
import { poolClient, type PoolClientChoice } from './naming-client.ts';
import { timestamptzParser } from './parse-timestamptz.ts';

const TIMESTAMPTZ = 1184;
let typesSet = false;

/** pg's parsers are process-wide: set once, when the first pool is opened. */
function setTypeParsers(types: typeof pg.types): void {
  if (typesSet) return;
  typesSet = true;
  types.setTypeParser(
    TIMESTAMPTZ,
    timestamptzParser(types.getTypeParser(TIMESTAMPTZ, 'text') as (text: string) => unknown),
  );
  types.setTypeParser(1082, (value: string) => value);
  types.setTypeParser(20, (value: string) => Number(value));
}

export interface OpenPostgresOptions {
  /** Told, in one line, when the pool falls back to pg's plain client (pg-internals.ts). */
  readonly warn?: (message: string) => void;
  /** The client class; by default the one chosen for the installed pg. */
  readonly client?: PoolClientChoice;
}

export function openPostgres(
  url: string,
  max = 10,
  options: OpenPostgresOptions = {},
): { db: Kysely<DynamicSchema>; pool: pg.Pool } {
  const { Pool, types } = loadPg();
  setTypeParsers(types);
  const client = options.client ?? poolClient();
  if (client.fallback !== undefined) {
    options.warn?.(
      `PostgreSQL statements run unnamed (each is parsed and planned again, slower): ${client.fallback}, not the shape svc was verified with; install the pg version package.json names`,
    );
  }
  // A server that does not answer (a partition, not a refusal) must fail requests with 503, not hang them.
  const pool = new Pool({ connectionString: url, max, Client: client.Client, connectionTimeoutMillis: 5000 });
  // An idle client losing its connection (server restart) must not crash the process.
  pool.on('error', () => {});
  const db = new Kysely<DynamicSchema>({ dialect: new PostgresDialect({ pool }) });
  return { db, pool };
}
