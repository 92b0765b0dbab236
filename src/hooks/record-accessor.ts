import type { RawQuery } from '../query/parse-list-query.ts';
import type { Actor, RequestMeta, WriteScope } from '../records/record-service.ts';
import type { Resource } from '../resources/resource.ts';
import type { ResourceRegistry } from '../resources/resource-registry.ts';
import type { ListQueryInput, RecordAccessor, Records, RecordsOptions } from './hook-types.ts';

/** A query string longer than any URL svc accepts is a mistake, not a query. */
const MAX_QUERY_LENGTH = 8192;

/** Where an accessor's calls go: a write's transaction (WriteScope) or the service (a custom route). */
export type AccessorTarget = WriteScope;

export class AccessorLifetime {
  #closed = false;
  #pending = 0;
  #idle: (() => void) | undefined;

  /** No call may start from now on. */
  close(): void {
    this.#closed = true;
  }

  /** Resolves once no call is in flight. */
  settled(): Promise<void> {
    if (this.#pending === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.#idle = resolve;
    });
  }

  async track<T>(what: string, call: () => Promise<T>): Promise<T> {
    if (this.#closed)
      throw new Error(
        `records: ${what} after the hook was over (a hook must await its calls, and finish within server.hookTimeoutMs)`,
      );
    this.#pending++;
    try {
      return await call();
    } finally {
      if (--this.#pending === 0 && this.#idle) {
        const idle = this.#idle;
        this.#idle = undefined;
        idle();
      }
    }
  }
}

/** Errors an accessor call threw: a hook that lets one through is answered as that error, not as its own failure. */
export const accessorErrors = new WeakSet<object>();

export function createRecords(
  registry: ResourceRegistry,
  /** Where the calls go, asked for at the first call. */
  targetOf: () => AccessorTarget,
  meta: RequestMeta | undefined,
  lifetime?: AccessorLifetime,
): Records {
  return (name, options) => {
    const system = actingAsSystem(options);
    if (!system && meta === undefined)
      throw new TypeError(
        `records('${String(name)}'): there is no caller here; use records('${String(name)}', { as: 'system' })`,
      );
    const resource = enabledResource(registry, name);
    const actor: Actor = { meta: meta ?? { principal: { kind: 'admin' } }, system };
    const call = <T>(what: string, work: () => Promise<T>): Promise<T> => {
      const run = async () => {
        try {
          return await work();
        } catch (error) {
          if (typeof error === 'object' && error !== null) accessorErrors.add(error);
          throw error;
        }
      };
      return lifetime ? lifetime.track(`${resource.name}.${what}`, run) : run();
    };
    const accessor: RecordAccessor = {
      get: (id) => call('get', () => targetOf().get(resource, actor, String(id))),
      list: (query) => call('list', () => targetOf().list(resource, actor, rawQuery(query))),
      create: (values) => call('create', () => targetOf().create(resource, actor, values)),
      update: (id, values) => call('update', () => targetOf().update(resource, actor, String(id), values)),
      delete: (id) => call('delete', () => targetOf().remove(resource, actor, String(id))),
    };
    return Object.freeze(accessor);
  };
}

function actingAsSystem(options: RecordsOptions | undefined): boolean {
  const as = options?.as;
  if (as === undefined || as === 'caller') return false;
  if (as === 'system') return true;
  throw new TypeError(`records(): 'as' must be 'caller' or 'system', got ${JSON.stringify(as)}`);
}

function enabledResource(registry: ResourceRegistry, name: unknown): Resource {
  const resource = typeof name === 'string' ? registry.find(name) : undefined;
  if (!resource?.enabled) throw new TypeError(`records(${JSON.stringify(name)}): no such resource`);
  return resource;
}

/** A list query given as a string or an object, as the parser takes it from a URL. */
function rawQuery(query: ListQueryInput | undefined): RawQuery {
  const raw: RawQuery = Object.create(null) as RawQuery;
  if (query === undefined) return raw;
  if (typeof query === 'string') {
    if (query.length > MAX_QUERY_LENGTH)
      throw new TypeError(`records().list: the query is longer than ${MAX_QUERY_LENGTH} characters`);
    for (const [key, value] of new URLSearchParams(query)) add(raw, key, value);
    return raw;
  }
  for (const key of Object.keys(query)) {
    const value = query[key];
    if (Array.isArray(value)) for (const item of value as readonly unknown[]) add(raw, key, String(item));
    else if (value !== undefined) add(raw, key, String(value));
  }
  return raw;
}

function add(raw: RawQuery, key: string, value: string): void {
  const had = raw[key];
  raw[key] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
}
