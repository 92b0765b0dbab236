// A pg client that names the statements Kysely sends, so each pooled connection parses and plans a
// query text once and then only binds and executes it (a point lookup: ~40% less time per query, most
// of it the server's). Names map one-to-one to texts for the whole process; texts beyond the cap (many
// distinct filters) run unnamed, so the statements prepared on a connection stay bounded. When pg's
// internals are not the shape this was built on (pg-internals.ts), pools get pg's plain client instead.
import type pg from 'pg';
import { loadPg } from '../../tools/optional-packages.ts';
import { defineDescribedQuery, type RowDescription } from './described-query.ts';
import { loadPgInternals, pgInternalsProblem, type PgInternals } from './pg-internals.ts';

const MAX_NAMED_STATEMENTS = 500;
/**
 * Only data statements: BEGIN/COMMIT/SAVEPOINT, LISTEN, DDL and the like stay unnamed, and so do texts
 * that begin with a comment (a batch's inserts, whose texts vary: batched-insert-writer.ts).
 */
const NAMEABLE = /^\s*(?:select|insert|update|delete|with)\s/i;

const names = new Map<string, string>();

function statementName(text: string): string | undefined {
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMED_STATEMENTS && NAMEABLE.test(text)) {
    name = `svc_${names.size}`;
    names.set(text, name);
  }
  return name;
}

/** A pg client whose data statements run named (see described-query.ts). */
export interface NamingClient extends pg.Client {
  /** Row descriptions of the statements prepared on this client's connection. */
  readonly descriptions: Map<string, RowDescription>;
}

type ClientClass = new (config?: string | pg.ClientConfig) => pg.Client;
type NamingClientClass = new (config?: string | pg.ClientConfig) => NamingClient;

/** The client class pools are given. */
export interface PoolClientChoice {
  readonly Client: ClientClass;
  /** Why pg's plain client is used instead of the naming one (for a warning); undefined when it is not. */
  readonly fallback: string | undefined;
}

let chosen: PoolClientChoice | undefined;

/** The choice for the installed pg, made on first use: pg is loaded only by deployments on PostgreSQL. */
export function poolClient(): PoolClientChoice {
  chosen ??= choosePoolClient(loadPgInternals(loadPg()));
  return chosen;
}

export function choosePoolClient(internals: PgInternals): PoolClientChoice {
  const problem = pgInternalsProblem(internals);
  if (problem !== undefined)
    return { Client: guardedClient(internals.Client), fallback: `pg ${internals.version}: ${problem}` };
  return { Client: defineNamingClient(internals), fallback: undefined };
}

/** pg's client with the one thing every pooled client here needs: a listener for a dropped connection. */
function guardedClient(Client: typeof pg.Client): ClientClass {
  return class GuardedClient extends Client {
    constructor(config?: string | pg.ClientConfig) {
      super(config);
      // A connection that drops while the client is checked out emits 'error' with no pool listener
      // attached, which would crash the process. The query in flight is rejected anyway (and answered
      // 503), and the pool discards a client that is no longer queryable when it is released.
      this.on('error', () => {});
    }
  };
}

function defineNamingClient(internals: PgInternals): NamingClientClass {
  const Client = guardedClient(internals.Client);
  const DescribedQuery = defineDescribedQuery(internals.Query, internals.prepareValue as (value: unknown) => unknown);
  const plainQuery = Client.prototype.query as (this: pg.Client, ...args: unknown[]) => unknown;

  class NamingClientImpl extends Client implements NamingClient {
    readonly descriptions = new Map<string, RowDescription>();
  }

  function runNamed(client: NamingClient, name: string, text: string, values: unknown[]): Promise<unknown> {
    return new Promise((resolve, reject) => {
      // pg's own promise path first copies a config object (cloneQueryConfig, ~3% of a point lookup);
      // a query object passed as is skips that and the extra promise.
      const query = new DescribedQuery(name, text, values, client.descriptions);
      query.callback = (error, result) => {
        if (error) {
          // As pg does: a stack that leads back to the query, not to the socket read.
          Error.captureStackTrace(error);
          reject(error);
        } else resolve(result);
      };
      plainQuery.call(client, query);
    });
  }

  // Kysely calls query(text, values) and awaits the promise; every other form passes through untouched.
  (NamingClientImpl.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function query(
    this: NamingClient,
    ...args: unknown[]
  ) {
    const [text, values] = args;
    if (args.length === 2 && typeof text === 'string' && Array.isArray(values)) {
      const name = statementName(text);
      if (name !== undefined) return runNamed(this, name, text, values);
    }
    return plainQuery.apply(this, args);
  };
  return NamingClientImpl;
}
