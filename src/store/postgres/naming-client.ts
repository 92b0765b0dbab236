// A pg client that names the statements Kysely sends, so each pooled connection parses and plans a
// query text once and then only binds and executes it (a point lookup: ~40% less time per query, most
// of it the server's). Names map one-to-one to texts for the whole process; texts beyond the cap (many
// distinct filters) run unnamed, so the statements prepared on a connection stay bounded.
import type pg from 'pg';
import { loadPg } from '../../tools/optional-packages.ts';
import { describedQuery, type RowDescription } from './described-query.ts';

const MAX_NAMED_STATEMENTS = 500;
/** Only data statements: BEGIN/COMMIT/SAVEPOINT, LISTEN, DDL and the like stay unnamed. */
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

/** A pg client whose data statements run named; the class is built on first use (see described-query.ts). */
export interface NamingClient extends pg.Client {
  /** Row descriptions of the statements prepared on this client's connection. */
  readonly descriptions: Map<string, RowDescription>;
}

type NamingClientClass = new (config?: string | pg.ClientConfig) => NamingClient;

let namingClientClass: NamingClientClass | undefined;

export function namingClient(): NamingClientClass {
  namingClientClass ??= defineNamingClient();
  return namingClientClass;
}

function defineNamingClient(): NamingClientClass {
  const { Client } = loadPg();
  const DescribedQuery = describedQuery();
  const plainQuery = Client.prototype.query as (this: pg.Client, ...args: unknown[]) => unknown;

  class NamingClientImpl extends Client implements NamingClient {
    readonly descriptions = new Map<string, RowDescription>();

    constructor(config?: string | pg.ClientConfig) {
      super(config);
      // A connection that drops while the client is checked out emits 'error' with no pool listener
      // attached, which would crash the process. The query in flight is rejected anyway (and answered
      // 503), and the pool discards a client that is no longer queryable when it is released.
      this.on('error', () => {});
    }
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
  (NamingClientImpl.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function query(this: NamingClient, ...args: unknown[]) {
    const [text, values] = args;
    if (args.length === 2 && typeof text === 'string' && Array.isArray(values)) {
      const name = statementName(text);
      if (name !== undefined) return runNamed(this, name, text, values);
    }
    return plainQuery.apply(this, args);
  };
  return NamingClientImpl;
}
