// createClient: the official client of a svc service (docs/client.md). It holds the base URL and the
// credential (an API key, the admin token, or a browser session's cookies) and hands out the typed
// parts: records, live queries, sign-in and keys.
import { call, type Transport } from './http-call.ts';
import { type EventSourceClass, type LiveQuery, type LiveQueryOptions, liveQuery } from './live-query.ts';
import { type RecordsApi, recordsApi } from './records-api.ts';
import { flatten, type ResourceObject } from './resource-object.ts';
import type { SvcSchema, SvcRecord, UntypedSchema } from './schema-types.ts';

export interface ClientOptions {
  /** The service's URL, e.g. `http://localhost:3000` (a path prefix is kept). */
  baseUrl: string;
  /** An API key or the admin token; `signIn` sets one too. */
  apiKey?: string;
  /** Another `fetch` (the platform's by default). */
  fetch?: typeof fetch;
  /** Another `EventSource` for live queries: in Node, the `eventsource` package's class. */
  EventSource?: EventSourceClass;
  /** Send the browser's cookies (a session from `/auth/sign-in/email`) with every request and stream. */
  withCredentials?: boolean;
}

/**
 * What `signIn` exchanges for a key: an email and password, or a session already signed in (at
 * `/auth/sign-in/email`): its token, or, with `withCredentials` in a browser, its cookie.
 */
export interface SignIn {
  email?: string;
  password?: string;
  /** A session token from `/auth/sign-in/email`, sent as the bearer of this one request. */
  sessionToken?: string;
  /** A label for the key. */
  name?: string;
  /** Seconds until the key expires; omitted: never. */
  expiresIn?: number;
  /** Scoped permissions, `{ posts: { read: ['title'] } }`; omitted: everything the role allows. */
  permissions?: Record<string, Partial<Record<'read' | 'create' | 'update' | 'delete', string[]>>>;
}

export interface IssuedKey {
  key: string;
  id: string;
  name: string | null;
  start: string;
  prefix: string;
  expiresAt: string | null;
  permissions: unknown;
}

export interface KeysApi {
  /** The caller: its user, role in force, roles it may switch to, key limits and access per resource. */
  me(): Promise<Record<string, unknown> & { id: string }>;
  /** Revokes the key the client holds (signing out) and forgets it. */
  revoke(): Promise<void>;
  /** Admin token only: every key, one key, a change to one, its deletion. */
  list(): Promise<(Record<string, unknown> & { id: string })[]>;
  get(id: string): Promise<Record<string, unknown> & { id: string }>;
  update(id: string, changes: Record<string, unknown>): Promise<Record<string, unknown> & { id: string }>;
  delete(id: string): Promise<void>;
}

export interface SvcClient<T extends SvcSchema> {
  records<N extends keyof T & string>(resource: N): RecordsApi<T[N]>;
  live<N extends keyof T & string>(
    resource: N,
    options?: LiveQueryOptions<T[N]['fields'], T[N]['sortable']>,
  ): LiveQuery<SvcRecord<T[N]['fields']>>;
  /**
   * Exchanges an email and password, or a signed-in session, for an API key (`POST /token`), which the
   * client then uses.
   */
  signIn(credentials: SignIn): Promise<IssuedKey>;
  /** Uses another API key from now on (undefined: none). */
  setApiKey(apiKey: string | undefined): void;
  readonly keys: KeysApi;
}

export function createClient<T extends SvcSchema = UntypedSchema>(options: ClientOptions): SvcClient<T> {
  let apiKey = options.apiKey;
  const baseUrl = options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`;
  const transport: Transport = {
    baseUrl,
    // Called unbound: the platform's fetch refuses another `this`.
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    authorization: () => (apiKey !== undefined ? `Bearer ${apiKey}` : undefined),
    credentials: options.withCredentials ? 'include' : undefined,
  };
  const keyPath = (id: string): string => `admin/keys/${encodeURIComponent(id)}`;
  return {
    records: (resource) => recordsApi(transport, resource),
    live: (resource, liveOptions) =>
      liveQuery(
        {
          transport,
          eventSource: options.EventSource,
          withCredentials: options.withCredentials === true,
          streamToken: () => apiKey,
        },
        resource,
        liveOptions,
      ),
    async signIn({ sessionToken, ...credentials }) {
      // A session signs in as itself: the key the client may hold must not stand in for it.
      const session: Transport = {
        ...transport,
        authorization: () => (sessionToken ? `Bearer ${sessionToken}` : undefined),
      };
      const issued = await call<IssuedKey>(session, 'POST', 'token', credentials);
      apiKey = issued.key;
      return issued;
    },
    setApiKey(next) {
      apiKey = next;
    },
    keys: {
      async me() {
        return flatten((await call<{ data: ResourceObject }>(transport, 'GET', 'me')).data);
      },
      async revoke() {
        await call<void>(transport, 'DELETE', 'me/key');
        apiKey = undefined;
      },
      async list() {
        return (await call<{ data: ResourceObject[] }>(transport, 'GET', 'admin/keys')).data.map((key) => flatten(key));
      },
      async get(id) {
        return flatten((await call<{ data: ResourceObject }>(transport, 'GET', keyPath(id))).data);
      },
      async update(id, changes) {
        return flatten((await call<{ data: ResourceObject }>(transport, 'PATCH', keyPath(id), changes)).data);
      },
      async delete(id) {
        await call<void>(transport, 'DELETE', keyPath(id));
      },
    },
  };
}
