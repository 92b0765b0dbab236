// The shapes an application's hooks file is written against (docs/hooks.md): the hooks per resource,
// what each receives, the record accessor and the custom routes. Published in the package's types.
import type { FastifyReply, FastifyRequest, FastifySchema, RouteShorthandOptions } from 'fastify';
import type { RecordEvent } from '../model/record-event.ts';
import type { RecordValues } from '../model/record-values.ts';

/** Who makes the request: an API key's or token's user, or the admin token. Never a secret. */
export type Caller =
  // keyId: null for an external JWT's caller (auth.jwt), who has no key.
  | { readonly userId: string; readonly role: string; readonly keyId: string | null; readonly admin?: undefined }
  | { readonly admin: true };

/** A list query as an object (`{ status: 'published', _sort: '-created_at' }`) or a query string (`status=published&_limit=5`). */
export type ListQueryInput = string | Readonly<Record<string, string | number | boolean | readonly string[]>>;

/** One resource's records, read and written as the caller (their permissions apply) or as the system. */
export interface RecordAccessor {
  /** The record, as the caller may read it; 404 RESOURCE_NOT_FOUND when they cannot. */
  get(id: string): Promise<RecordValues>;
  /** The first page of the records the query selects (the list query language of `GET /v1/<resource>`). */
  list(query?: ListQueryInput): Promise<RecordValues[]>;
  create(values: Record<string, unknown>): Promise<RecordValues>;
  /** Changes the given fields (as PATCH does). */
  update(id: string, values: Record<string, unknown>): Promise<RecordValues>;
  delete(id: string): Promise<void>;
}

export interface RecordsOptions {
  /** `'system'`: every permission. Default: the caller. */
  as?: 'caller' | 'system';
}

export type Records = (resource: string, options?: RecordsOptions) => RecordAccessor;

interface HookContextBase {
  /** The resource written (useful in `'*'` hooks). */
  readonly resource: string;
  readonly caller: Caller;
  /** Reads and writes in the same transaction: they commit or roll back with the write. */
  readonly records: Records;
}

export interface BeforeCreateContext extends HookContextBase {
  /** The validated values of the new record; change them to change what is stored. */
  values: Record<string, unknown>;
  readonly previous: null;
}

export interface BeforeUpdateContext extends HookContextBase {
  /** Only the fields the request changes; add, change or delete members to change what is stored. */
  values: Record<string, unknown>;
  /** The record as stored before the change. */
  readonly previous: RecordValues;
}

export interface BeforeDeleteContext extends HookContextBase {
  readonly previous: RecordValues;
}

/** An after-commit hook's argument: the event as streams and webhooks carry it. */
export interface AfterContext {
  readonly resource: string;
  readonly caller: Caller;
  readonly event: RecordEvent;
}

type Hook<C> = (context: C) => void | Promise<void>;

export interface ResourceHooks {
  beforeCreate?: Hook<BeforeCreateContext>;
  beforeUpdate?: Hook<BeforeUpdateContext>;
  beforeDelete?: Hook<BeforeDeleteContext>;
  afterCreate?: Hook<AfterContext>;
  afterUpdate?: Hook<AfterContext>;
  afterDelete?: Hook<AfterContext>;
}

export const HOOK_NAMES = [
  'beforeCreate',
  'beforeUpdate',
  'beforeDelete',
  'afterCreate',
  'afterUpdate',
  'afterDelete',
] as const;
export type HookName = (typeof HOOK_NAMES)[number];

/**
 * Who may call a custom route: `'key'` an API key or user token (the default), `'admin'` the admin
 * token, `'any'` either, `'public'` anyone (no caller).
 */
export type RouteAuth = 'key' | 'admin' | 'any' | 'public';

export interface RequestSvc {
  /** Null on a `'public'` route. */
  readonly caller: Caller | null;
  /** Records as the caller (`{ as: 'system' }` for every permission; on a public route only that). */
  readonly records: Records;
}

export type HookRequest = FastifyRequest & { readonly svc: RequestSvc };
export type RouteHandler = (request: HookRequest, reply: FastifyReply) => unknown;

export interface RouteOptions extends Omit<RouteShorthandOptions, 'schema'> {
  auth?: RouteAuth;
  /** Described in /openapi.json and /docs when given (Fastify's route schema: params, querystring, body, response). */
  schema?: FastifySchema & { summary?: string; description?: string; tags?: string[] };
}

/** The routes a hooks file adds, mounted on svc's own server. */
export interface HookApp {
  get(path: string, options: RouteOptions, handler: RouteHandler): HookApp;
  post(path: string, options: RouteOptions, handler: RouteHandler): HookApp;
  put(path: string, options: RouteOptions, handler: RouteHandler): HookApp;
  patch(path: string, options: RouteOptions, handler: RouteHandler): HookApp;
  delete(path: string, options: RouteOptions, handler: RouteHandler): HookApp;
}

export type RoutesFunction = (app: HookApp, tools: { readonly records: Records }) => void | Promise<void>;

/** The default export of a hooks file: hooks per resource name, `'*'` for every resource, and `routes`. */
export interface HooksDefinition {
  routes?: RoutesFunction;
  '*'?: ResourceHooks;
  [resource: string]: ResourceHooks | RoutesFunction | undefined;
}
