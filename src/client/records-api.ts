// A resource's records: list, get, create, update, delete, typed from the resource's schema.
import { call, type Transport } from './http-call.ts';
import { type ListQuery, listQueryParams } from './list-query.ts';
import { flatten, type ResourceObject } from './resource-object.ts';
import type { ResourceSchema, SvcRecord } from './schema-types.ts';

export interface ListPage<R> {
  data: R[];
  /** How many records match the filter (all pages). */
  total: number;
  /** The page links as the server sent them (`next`, `prev`, … ; keyset cursors inside them). */
  links: Record<string, string | undefined>;
}

export interface RecordsApi<S extends ResourceSchema> {
  list(query?: ListQuery<S['fields'], S['sortable']>): Promise<ListPage<SvcRecord<S['fields']>>>;
  get(id: string, options?: { fields?: readonly (keyof S['fields'] & string)[] }): Promise<SvcRecord<S['fields']>>;
  create(values: S['create'], options?: { idempotencyKey?: string }): Promise<SvcRecord<S['fields']>>;
  update(id: string, values: Partial<S['create']>): Promise<SvcRecord<S['fields']>>;
  delete(id: string): Promise<void>;
}

interface ListDocument {
  data: ResourceObject[];
  meta?: { total?: number };
  links?: Record<string, string | undefined>;
}

function withQuery(path: string, params: URLSearchParams): string {
  const query = params.toString();
  return query === '' ? path : `${path}?${query}`;
}

export function recordsApi<S extends ResourceSchema>(transport: Transport, resource: string): RecordsApi<S> {
  type R = SvcRecord<S['fields']>;
  const base = `v1/${encodeURIComponent(resource)}`;
  const one = (id: string): string => `${base}/${encodeURIComponent(id)}`;
  return {
    async list(query = {}) {
      const document = await call<ListDocument>(transport, 'GET', withQuery(base, listQueryParams(query)));
      return {
        data: document.data.map((resource) => flatten<R>(resource)),
        total: document.meta?.total ?? document.data.length,
        links: document.links ?? {},
      };
    },
    async get(id, options = {}) {
      const params = new URLSearchParams();
      // A read by id takes JSON:API's sparse fieldset, named by type (the list's `fields` is svc's own).
      if (options.fields !== undefined) params.set(`fields[${resource}]`, options.fields.join(','));
      return flatten<R>((await call<{ data: ResourceObject }>(transport, 'GET', withQuery(one(id), params))).data);
    },
    async create(values, options = {}) {
      const headers = options.idempotencyKey !== undefined ? { 'idempotency-key': options.idempotencyKey } : undefined;
      return flatten<R>(
        (await call<{ data: ResourceObject }>(transport, 'POST', base, values, 'application/json', headers)).data,
      );
    },
    async update(id, values) {
      return flatten<R>((await call<{ data: ResourceObject }>(transport, 'PATCH', one(id), values)).data);
    },
    async delete(id) {
      await call<void>(transport, 'DELETE', one(id));
    },
  };
}
