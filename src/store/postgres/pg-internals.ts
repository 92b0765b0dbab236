// The named-statement clients (naming-client.ts, described-query.ts) build on parts of pg 8 that are
// not its public API: Query's prepare, handleRowDescription and _getRows, the parsers its _result keeps,
// and lib/utils.js's prepareValue. package.json pins pg to the minor release they were verified with;
// the shape is also checked when the first pool opens, so a pg that differs anyway (an override, another
// copy hoisted into node_modules) makes svc fall back to pg's plain client instead of failing queries.
import { createRequire } from 'node:module';
import type pg from 'pg';

/** The parts of pg the named-statement clients are built from. */
export interface PgInternals {
  readonly version: string;
  readonly Client: typeof pg.Client;
  /** pg's Query class (lib/query.js), not part of its typings. */
  readonly Query: unknown;
  /** lib/utils.js's value mapper. */
  readonly prepareValue: unknown;
}

const QUERY_METHODS = ['submit', 'prepare', 'handleRowDescription', '_getRows'];
const QUERY_FIELDS = ['portal', '_result'];
const RESULT_FIELDS = ['fields', '_parsers', '_prebuiltEmptyResultObject'];

type QueryClass = (new (text: string, values: unknown[]) => object) & { prototype: object };

export function loadPgInternals(pgModule: typeof pg): PgInternals {
  const require = createRequire(import.meta.url);
  const read = (path: string): Record<string, unknown> => {
    try {
      return require(path) as Record<string, unknown>;
    } catch {
      // A pg without the file: the check below reports what is missing.
      return {};
    }
  };
  const version = read('pg/package.json').version;
  return {
    version: typeof version === 'string' ? version : 'unknown',
    Client: pgModule.Client,
    Query: (pgModule as unknown as { Query?: unknown }).Query,
    prepareValue: read('pg/lib/utils.js').prepareValue,
  };
}

function methodOf(target: object, name: string): unknown {
  return (target as Record<string, unknown>)[name];
}

/** Why the internals differ from what the clients were built on; undefined when they have its shape. */
export function pgInternalsProblem(internals: PgInternals): string | undefined {
  if (typeof internals.prepareValue !== 'function') return 'pg/lib/utils.js has no prepareValue()';
  if (typeof internals.Client?.prototype?.query !== 'function') return "pg's Client has no query()";
  if (typeof internals.Query !== 'function') return 'pg exports no Query class';
  const Query = internals.Query as QueryClass;
  for (const method of QUERY_METHODS)
    if (typeof methodOf(Query.prototype, method) !== 'function') return `pg's Query has no ${method}()`;
  let query: object;
  try {
    query = new Query('select 1', []);
  } catch (error) {
    return `pg's Query cannot be built (${error instanceof Error ? error.message : String(error)})`;
  }
  for (const field of QUERY_FIELDS) if (!(field in query)) return `pg's Query has no ${field}`;
  const result = methodOf(query, '_result');
  if (typeof result !== 'object' || result === null) return "pg's Query has no _result object";
  if (typeof methodOf(result, 'addFields') !== 'function') return "pg's Result has no addFields()";
  for (const field of RESULT_FIELDS) if (!(field in result)) return `pg's Result has no ${field}`;
  return undefined;
}
