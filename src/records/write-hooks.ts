// What the record service asks of hooks (hooks/hook-runner.ts implements it): code that runs inside a
// write's transaction, before the row is written, and may change the values or refuse the write. Every
// write of a record goes through the service's create/update/delete path, whichever route asked for it
// (a resource route, an atomic batch, a custom route, another hook), so hooks apply to all of them.
import type { Principal } from '../model/principal.ts';
import type { RecordEvent } from '../model/record-event.ts';
import type { RecordValues } from '../model/record-values.ts';
import type { LikePatternLimits } from '../query/like-pattern-limits.ts';
import type { RawQuery } from '../query/parse-list-query.ts';
import type { Resource } from '../resources/resource.ts';
import type { RequestMeta } from './record-results.ts';

export type WriteKind = 'create' | 'update' | 'delete';

/** Who a read or write made inside a hook acts as: the request's caller (their permissions apply), or the system (every permission). */
export interface Actor {
  readonly meta: RequestMeta;
  readonly system: boolean;
}

/**
 * Reads and writes on the transaction of the write a hook runs in: their changes commit or roll back
 * with it, and each write emits its own event (and webhook deliveries) in it.
 */
export interface WriteScope {
  get(resource: Resource, actor: Actor, id: string): Promise<RecordValues>;
  list(resource: Resource, actor: Actor, query: RawQuery): Promise<RecordValues[]>;
  create(resource: Resource, actor: Actor, values: unknown): Promise<RecordValues>;
  update(resource: Resource, actor: Actor, id: string, values: unknown): Promise<RecordValues>;
  remove(resource: Resource, actor: Actor, id: string): Promise<void>;
}

export interface BeforeWrite {
  readonly kind: WriteKind;
  readonly resource: Resource;
  readonly meta: RequestMeta;
  /** The incoming values (create, update: only the change), validated; a hook may change them. Null for a delete. */
  readonly values: RecordValues | null;
  /** The stored record (update, delete), or null (create). */
  readonly previous: RecordValues | null;
  /** Reads and writes on the write's transaction, made on first use. */
  readonly scope: () => WriteScope;
  /** 0 for a request's own write, 1 for a write a hook made, and so on. */
  readonly depth: number;
}

export interface WriteHooks {
  /** The bounds of a LIKE pattern in a list a hook makes (server.likePatternMaxLength and …MaxWildcards, as for /v1). */
  readonly likeLimits: LikePatternLimits;
  /** Some hook (before or after) is defined for the resource: its writes take a transaction, never the one-statement path. */
  touches(resource: string): boolean;
  hasBefore(resource: string, kind: WriteKind): boolean;
  /** Runs the before hooks of the write, bounded in time; throws the ApiError that refuses it. */
  before(write: BeforeWrite): Promise<void>;
  /** Who made a change, for the after-commit hooks of its event. */
  noteCaller(event: RecordEvent, principal: Principal): void;
}
