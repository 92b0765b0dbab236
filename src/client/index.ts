// The entry of `svc/client`: the official client, for browsers and Node, with nothing but the platform's
// fetch and EventSource.
export { createClient } from './create-client.ts';
export type { ClientOptions, IssuedKey, KeysApi, SignIn, SvcClient } from './create-client.ts';
export type { EventSourceClass, EventSourceLike, LiveQuery, LiveQueryOptions } from './live-query.ts';
export type { Filter, ListQuery, SortKey } from './list-query.ts';
export type { ListPage, RecordsApi } from './records-api.ts';
export type { ResourceSchema, SvcRecord, SvcSchema, SystemFields, UntypedSchema } from './schema-types.ts';
export { type JsonApiError, SvcClientError } from './svc-client-error.ts';
