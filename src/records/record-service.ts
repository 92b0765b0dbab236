// Create, list, get, replace, patch and delete records of a resource for a caller, with the caller's
// access rules applied in SQL and each change written together with its event. Reads take queries http/
// has parsed, are planned in query/ and run by record-reads.ts; a write goes in one statement where the store offers it
// (one-statement-changes.ts), else in a transaction (change-runner.ts).
import { isDeepStrictEqual } from 'node:util';
import { ApiError } from '../errors/api-error.ts';
import type { Resource } from '../resources/resource.ts';
import type { ResourceRegistry } from '../resources/resource-registry.ts';
import type { Store } from '../store/create-store.ts';
import type { Db } from '../store/store-dialect.ts';
import { uuidv7 } from '../store/uuid-v7.ts';
import { insertStatement, insertUnlessTakenStatement, updateByIdStatement } from '../store/write-statements.ts';
import type { Principal } from '../model/principal.ts';
import { resolveAccess } from '../permissions/resolve-access.ts';
import { VisibleRows } from '../query/visible-rows.ts';
import { ListPlans } from '../query/list-plan.ts';
import { ByIdQueries } from '../query/by-id-queries.ts';
import { columnsOf } from '../query/record-columns.ts';
import { buildRecordEvent } from '../events/build-record-event.ts';
import type { RecordEvent } from '../model/record-event.ts';
import type { RecordValues } from '../model/record-values.ts';
import type { AccessGrant } from '../model/access-grant.ts';
import type { ErrorCode } from '../errors/error-catalogue.ts';
import { decodeRow, encodeValues } from './record-codec.ts';
import { validateRecordBody, type WriteMode } from './validate-record-body.ts';
import { checkReferences, type Reference } from './check-references.ts';
import { applySoftDeleteReferences, isReferenced, referencesIn } from './relation-references.ts';
import { cascadeReachesFiles, filesCascadedBy } from './cascaded-files.ts';
import { noteCascadedFiles } from '../model/cascaded-files.ts';
import {
  ChangeRunner,
  type CommittedEventsListener,
  type DiscardedEventsListener,
  type EventRowsHook,
  type EventWrittenHook,
  type ListenerErrorLog,
} from './change-runner.ts';
import { CheckRule } from './check-rule.ts';
import { RecordFailure } from './record-failure.ts';
import { RecordReads, type ListRead, type ListScope } from './record-reads.ts';
import { DEFAULT_INCLUDE_BOUNDS, type CompoundQuery, type IncludeBounds } from '../query/parse-compound-query.ts';
import { WriteTargets } from './write-targets.ts';
import { OneStatementChanges } from './one-statement-changes.ts';
import { OpeningWrite } from './opening-write.ts';
import { QueuedCreates } from './queued-creates.ts';
import type { BatchedInsertWriter } from '../store/batched-inserts.ts';
import type { ListResult, ReadResult, RequestMeta } from './record-results.ts';
import { restoreRecord } from './restore-record.ts';
import { readRecordHistory, type HistoryPage } from './record-history.ts';
import type { ExportedRecords } from './record-export.ts';
import type { AggregateGroup } from './aggregate-groups.ts';
import type { AggregateQuery } from '../query/aggregate-query.ts';
import type { ListQuery } from '../query/list-query.ts';
import { readUnder, type WritePrecondition } from './precondition.ts';
import { guard } from './driver-error-guard.ts';
import type { UpsertResult, WriteBatch } from './write-batch.ts';
import { parseListQuery } from '../query/parse-list-query.ts';
import { DEFAULT_LIKE_PATTERN_LIMITS } from '../query/like-pattern-limits.ts';
import { MATCH_ALL } from '../model/filter-node.ts';
import type { Actor, WriteHooks, WriteScope } from './write-hooks.ts';
import { checkHookValues, hookCopy } from './hook-values.ts';
import { visibleRecord } from './visible-record.ts';

export type {
  CommittedEventsListener,
  DiscardedEventsListener,
  EventRowsHook,
  EventWrittenHook,
  ListenerErrorLog,
} from './change-runner.ts';
export type { ListResult, ReadResult, RequestMeta } from './record-results.ts';
export type { ListRead, ListScope } from './record-reads.ts';
export type { UpsertResult, WriteBatch } from './write-batch.ts';
export type { Actor, BeforeWrite, WriteHooks, WriteKind, WriteScope } from './write-hooks.ts';

/** Who a hook's `{ as: 'system' }` writes act as: the admin principal, with every field (systemGrant). */
const SYSTEM_PRINCIPAL: Principal = Object.freeze({ kind: 'admin' });
const SYSTEM_GRANTS = new WeakMap<Resource, AccessGrant>();

/** Every field, every row, no check, no preset: a hook's write `as: 'system'`. */
function systemGrant(resource: Resource): AccessGrant {
  let grant = SYSTEM_GRANTS.get(resource);
  if (!grant) {
    grant = Object.freeze({
      fields: new Set(resource.fieldNames),
      filter: MATCH_ALL,
      check: null,
      preset: Object.freeze({}),
    });
    SYSTEM_GRANTS.set(resource, grant);
  }
  return grant;
}

/** For writes made outside any write of a resource (RecordService.transaction) while no hooks are loaded. */
const NO_HOOKS: WriteHooks = {
  likeLimits: DEFAULT_LIKE_PATTERN_LIMITS,
  touches: () => false,
  hasBefore: () => false,
  before: () => Promise.resolve(),
  noteCaller: () => {},
};

/** The hooks a write runs, and how deep in hooks' own writes it is (0: a request's own write). */
interface Hooked {
  readonly hooks: WriteHooks;
  readonly depth: number;
  /** The write's before hooks ran already, outside its transaction (#createHookedFirst). */
  readonly beforeRan?: boolean;
}
export type { ExportedRecords } from './record-export.ts';
export type { AggregateGroup } from './aggregate-groups.ts';

/** Work done in a create's own transaction with what it wrote (record-service.ts, create). */
export type WithinWrite<T = ReadResult> = (trx: Db, result: T) => Promise<void>;

/** Runs first in a write's transaction, before anything is written (an Idempotency-Key's claim). */
export type FirstInWrite = (trx: Db) => Promise<void>;

/** A create as #createIn makes it: validated, with its id and time chosen. */
interface CreateIn {
  resource: Resource;
  meta: RequestMeta;
  grant: AccessGrant;
  readable: string[];
  values: RecordValues;
  id: string;
  now: string;
}

/** An update as #updateIn makes it: validated against the update grant. */
interface UpdateIn {
  resource: Resource;
  meta: RequestMeta;
  id: string;
  values: RecordValues;
  grant: AccessGrant;
  readable: string[];
  precondition: WritePrecondition | undefined;
}

/** How often an upsert tries again when the row that held its key went between its insert and its update. */
const UPSERT_ATTEMPTS = 3;

/**
 * Whether a batch that failed with creates set aside runs again one write at a time: for a refusal (an
 * ApiError, a unique value, a reference), which may belong to another operation than the one it was
 * raised in. Not when the database is out of reach (the commit's outcome may be unknown: a second run
 * could store the batch twice) nor for an Idempotency-Key answered meanwhile.
 */
function mayRunAgain(error: unknown): boolean {
  if (error instanceof ApiError) return true;
  return error instanceof RecordFailure && error.kind !== 'unavailable';
}

/** Whether `name` is a field an upsert can go by: a unique one. */
export function isUpsertField(resource: Resource, name: string): boolean {
  return resource.fields.get(name)?.definition.unique === true;
}

export class RecordService {
  readonly #store: Store;
  readonly #registry: ResourceRegistry;
  readonly #runner: ChangeRunner;
  readonly #reads: RecordReads;
  readonly #targets: WriteTargets;
  readonly #checks: CheckRule;
  /** Where the store makes writes in one statement (PostgreSQL). */
  readonly #oneStatement: OneStatementChanges | undefined;
  readonly #lists: ListPlans;
  /** Where the store sends a batch's creates as few multi-row inserts (PostgreSQL). */
  readonly #batchedInserts: BatchedInsertWriter | undefined;
  /** The application's hooks (hooks/), when it has any: without them no write does any work for them. */
  #hooks: WriteHooks | undefined;

  constructor(
    store: Store,
    registry: ResourceRegistry,
    log?: ListenerErrorLog,
    includeBounds: IncludeBounds = DEFAULT_INCLUDE_BOUNDS,
  ) {
    this.#store = store;
    this.#registry = registry;
    const { db, dialect } = store;
    this.#runner = new ChangeRunner(store, log);
    const writer = store.oneStatementWriter?.(() => store.commitSignal.returning());
    const visible = new VisibleRows(dialect);
    const byId = new ByIdQueries(db, dialect, visible, writer?.rowVersion);
    this.#lists = new ListPlans(db, dialect, visible);
    this.#reads = new RecordReads(store, this.#lists, byId, visible, includeBounds);
    this.#targets = new WriteTargets(store, byId, this.#reads);
    this.#checks = new CheckRule(dialect);
    this.#oneStatement =
      writer && new OneStatementChanges(store, registry, writer, this.#runner, this.#checks, this.#targets);
    this.#batchedInserts = store.batchedInserts?.(() => store.commitSignal.returning());
  }

  /** Runs `hooks` in every write from now on (a reload replaces what they run, not this object). */
  useHooks(hooks: WriteHooks): void {
    this.#hooks = hooks;
  }

  /**
   * Runs `work` in one transaction with reads and writes on it (hooks/: a custom route's writes): each
   * write runs its resource's hooks and writes its event in it; they commit together, or none does.
   */
  transaction<T>(work: (scope: WriteScope) => Promise<T>): Promise<T> {
    // Depth -1: the scope's writes are a request's own (depth 0), as if made through /v1.
    return this.#runner.run('RESOURCE_STORE_ERROR', (trx, events) =>
      work(this.#scope(trx, events, this.#hooks ?? NO_HOOKS, -1)),
    );
  }

  onCommitted(listener: CommittedEventsListener): void {
    this.#runner.onCommitted(listener);
  }

  /** Events whose rows were written but rolled back: what a hook set aside for them (leases) can go. */
  onDiscarded(listener: DiscardedEventsListener): void {
    this.#runner.onDiscarded(listener);
  }

  onEventWritten(hook: EventWrittenHook): void {
    this.#runner.onEventWritten(hook);
  }

  onEventRows(hook: EventRowsHook): void {
    this.#runner.onEventRows(hook);
  }

  /** A list, given its parsed query (http/ parses the query string, http/routes/read-queries.ts). */
  list(resource: Resource, meta: RequestMeta, read: ListRead, scope?: ListScope): Promise<ListResult> {
    return this.#reads.list(resource, meta, read, scope);
  }

  /** Every record of a list the caller may read, in batches, for an export (record-export.ts). */
  export(resource: Resource, meta: RequestMeta, query: ListQuery): Promise<ExportedRecords> {
    return this.#reads.export(resource, meta, query);
  }

  /** The groups of an aggregate request over the rows the caller may read. */
  aggregate(resource: Resource, meta: RequestMeta, query: AggregateQuery): Promise<AggregateGroup[]> {
    return this.#reads.aggregate(resource, meta, query);
  }

  /** One record by id, with what `compound` includes. */
  get(resource: Resource, meta: RequestMeta, id: string, compound?: CompoundQuery): Promise<ReadResult> {
    return this.#reads.get(resource, meta, id, compound);
  }

  /** One-statement writes, when the store offers them and no hook has to write inside the write's transaction. */
  #oneStatementChanges(resource: Resource): OneStatementChanges | undefined {
    if (this.#hooks?.touches(resource.name)) return undefined;
    return this.#runner.hasWriteHooks ? undefined : this.#oneStatement;
  }

  /**
   * `clientId`: the id a client chose, where the resource allows it (http/documents/request-document.ts); otherwise
   * a new UUIDv7. `withinWrite` runs in the create's transaction after its event, and fails the write if
   * it fails (an Idempotency-Key's answer, stored with the write it answers); `first` runs in it before
   * anything is written (the key's claim, which may wait for another request's write or abandon this
   * one). A create with either takes the transaction, not the one-statement write.
   */
  async create(
    resource: Resource,
    meta: RequestMeta,
    body: unknown,
    clientId?: string,
    withinWrite?: WithinWrite,
    first?: FirstInWrite,
  ): Promise<ReadResult> {
    const grant = resolveAccess(resource, meta.principal, 'create');
    const readable = this.#readableAfterWrite(resource, meta.principal);
    const values = validateRecordBody(resource, grant, body, 'create');
    const id = clientId ?? uuidv7();
    const now = new Date().toISOString();
    const hooks = this.#hooks;
    if (hooks?.touches(resource.name)) {
      const create = { resource, meta, grant, readable, values, id, now };
      const oneStatement = withinWrite || first || this.#runner.hasWriteHooks ? undefined : this.#oneStatement;
      if (oneStatement) return this.#createHookedFirst(hooks, create, oneStatement);
      return this.#createHooked({ hooks, depth: 0 }, create, withinWrite, first);
    }
    const oneStatement = withinWrite || first ? undefined : this.#oneStatementChanges(resource);
    if (oneStatement) {
      const created = await oneStatement.create(
        resource,
        meta,
        grant,
        id,
        { ...values, created_at: now, updated_at: now },
        readable,
      );
      if (created) return created;
    }
    const references = referencesIn(this.#registry, resource, values);
    const written = this.#runner.run('RESOURCE_STORE_ERROR', async (trx, events) => {
      if (first) await first(trx);
      const result = (await this.#createIn(trx, events, undefined, {
        resource,
        meta,
        grant,
        readable,
        values,
        id,
        now,
      }))!;
      if (withinWrite) await withinWrite(trx, result);
      return result;
    });
    // Without references no foreign key can refuse the write: no wrapper, no extra promise turn.
    return references.length === 0 ? written : this.#withReferenceIssues(written, references, meta.principal);
  }

  /** create, for a resource with hooks: its own path, so that a create without them does no work for them. */
  async #createHooked(
    hooked: Hooked,
    create: CreateIn,
    withinWrite: WithinWrite | undefined,
    first: FirstInWrite | undefined,
  ): Promise<ReadResult> {
    // Filled inside the write (after the hooks changed the values), read by #withReferenceIssues after it.
    const references: Reference[] = [];
    const written = this.#runner.run('RESOURCE_STORE_ERROR', async (trx, events) => {
      if (first) await first(trx);
      const result = (await this.#createIn(trx, events, hooked, create, undefined, references))!;
      if (withinWrite) await withinWrite(trx, result);
      return result;
    });
    return this.#withReferenceIssues(written, references, create.meta.principal);
  }

  /**
   * A hooked create where a write is one statement (PostgreSQL): its before hooks run first, and it
   * takes a transaction only when a hook used `records()` (opening-write.ts). A hook that only changes
   * the values costs no round trip of its own.
   */
  async #createHookedFirst(
    hooks: WriteHooks,
    create: CreateIn,
    oneStatement: OneStatementChanges,
  ): Promise<ReadResult> {
    const { resource, meta } = create;
    const opening = new OpeningWrite<ReadResult>(this.#runner, 'RESOURCE_STORE_ERROR');
    let values = create.values;
    if (hooks.hasBefore(resource.name, 'create')) {
      try {
        values = await this.#beforeCreate({ hooks, depth: 0 }, create, this.#openingScope(opening, hooks, 0));
      } catch (error) {
        opening.abandon(error);
        throw error;
      }
    }
    const hooked: Hooked = { hooks, depth: 0, beforeRan: true };
    const after = { ...create, values };
    if (opening.opened) {
      const references: Reference[] = [];
      const written = opening.finish(
        async (trx, events) => (await this.#createIn(trx, events, hooked, after, undefined, references))!,
      );
      return this.#withReferenceIssues(written, references, meta.principal);
    }
    opening.close();
    const created = await oneStatement.create(
      resource,
      meta,
      create.grant,
      create.id,
      { ...values, created_at: create.now, updated_at: create.now },
      create.readable,
      (event) => hooks.noteCaller(event, meta.principal),
    );
    if (created) return created;
    // The statement's conditions did not hold (a check rule, a reference the caller may not see): the
    // transaction's write says which. The hooks have run and do not run again.
    return this.#createHooked(hooked, after, undefined, undefined);
  }

  /** The create's values after its before hooks, checked again against the field types. */
  async #beforeCreate(hooked: Hooked, create: CreateIn, scope: () => WriteScope): Promise<RecordValues> {
    const { resource, meta } = create;
    // A copy at each run: a group commit may run the work again, and the hook changes what it gets.
    const given = hookCopy(create.values);
    await hooked.hooks.before({
      kind: 'create',
      resource,
      meta,
      values: given,
      previous: null,
      scope,
      depth: hooked.depth,
    });
    return checkHookValues(resource, given, 'create', create.values);
  }

  /** A hook's `records()` for a write whose transaction opens on the first read or write it makes. */
  #openingScope(opening: OpeningWrite<ReadResult>, hooks: WriteHooks, depth: number): () => WriteScope {
    let inTransaction: Promise<WriteScope> | undefined;
    const scope = () =>
      (inTransaction ??= opening.open().then(({ trx, events }) => this.#lazyScope(trx, events, hooks, depth)()));
    const made: WriteScope = {
      get: async (resource, actor, id) => (await scope()).get(resource, actor, id),
      list: async (resource, actor, query) => (await scope()).list(resource, actor, query),
      create: async (resource, actor, values) => (await scope()).create(resource, actor, values),
      update: async (resource, actor, id, values) => (await scope()).update(resource, actor, id, values),
      remove: async (resource, actor, id) => (await scope()).remove(resource, actor, id),
    };
    return () => made;
  }

  /**
   * A create inside a write's transaction, with its before hooks when `hooked` and its event.
   * `conflictField`: an upsert's unique field; when a row already holds its value nothing is written
   * and the answer is undefined. `references` gets the ones it checked.
   */
  async #createIn(
    trx: Db,
    events: RecordEvent[],
    hooked: Hooked | undefined,
    create: CreateIn,
    conflictField?: string,
    references: Reference[] = [],
  ): Promise<ReadResult | undefined> {
    const { resource, meta, grant, readable, id, now } = create;
    const values =
      !hooked?.beforeRan && hooked?.hooks.hasBefore(resource.name, 'create')
        ? await this.#beforeCreate(hooked, create, this.#lazyScope(trx, events, hooked.hooks, hooked.depth))
        : create.values;
    // A group commit may run this work again after another write of its group failed.
    references.length = 0;
    references.push(...referencesIn(this.#registry, resource, values));
    await checkReferences(trx, this.#store.dialect, references, meta.principal);
    // RETURNING gives the row as stored without reading it back (one round trip fewer).
    const { db, dialect } = this.#store;
    const encoded = { id, ...encodeValues(resource, dialect, { ...values, created_at: now, updated_at: now }) };
    const statement =
      conflictField === undefined
        ? insertStatement(db, resource.table, [encoded], columnsOf(resource))
        : insertUnlessTakenStatement(
            db,
            resource.table,
            encoded,
            conflictField,
            resource.softDelete,
            columnsOf(resource),
          );
    const row = (await this.#store.executeIn(trx, statement))[0];
    if (!row) return undefined;
    const record = decodeRow(resource, this.#store.dialect, row);
    await this.#checks.enforce(trx, resource, id, grant);
    await this.#writeEvent(
      trx,
      events,
      hooked,
      meta,
      buildRecordEvent(resource.name, meta, 'created', id, null, record),
    );
    return { record, attributes: readable };
  }

  /** The scope of #scope, made when a hook first uses `records` (most hooks never do). */
  #lazyScope(trx: Db, events: RecordEvent[], hooks: WriteHooks, depth: number): () => WriteScope {
    let scope: WriteScope | undefined;
    return () => (scope ??= this.#scope(trx, events, hooks, depth));
  }

  /**
   * Reads and writes for the hooks of a write, on its transaction `trx`: each write runs the before
   * hooks of its own resource (one level deeper) and writes its event into `events`.
   */
  #scope(trx: Db, events: RecordEvent[], hooks: WriteHooks, depth: number): WriteScope {
    const principalOf = (actor: Actor) => (actor.system ? SYSTEM_PRINCIPAL : actor.meta.principal);
    const metaOf = (actor: Actor): RequestMeta =>
      actor.system ? { ...actor.meta, principal: SYSTEM_PRINCIPAL } : actor.meta;
    const grantOf = (resource: Resource, actor: Actor, action: 'create' | 'update' | 'delete') =>
      actor.system ? systemGrant(resource) : resolveAccess(resource, actor.meta.principal, action);
    const readableOf = (resource: Resource, actor: Actor) =>
      actor.system ? [...resource.fieldNames] : this.#readableAfterWrite(resource, actor.meta.principal);
    // Each write a hook makes runs the hooks of its own resource, one level deeper.
    const inner: Hooked = { hooks, depth: depth + 1 };
    return {
      get: async (resource, actor, id) => {
        const principal = principalOf(actor);
        const grant = actor.system ? systemGrant(resource) : resolveAccess(resource, principal, 'read');
        const record = await this.#targets.find(trx, resource, principal, id, 'read', grant);
        return visibleRecord(record, grant.fields);
      },
      list: async (resource, actor, raw) => {
        const grant = actor.system ? systemGrant(resource) : resolveAccess(resource, principalOf(actor), 'read');
        const query = parseListQuery(raw, resource, grant.fields, hooks.likeLimits);
        const fields = query.fields ?? [...grant.fields];
        const plan = this.#lists.planOf(resource, grant.filter, query, fields);
        const rows = await this.#store.executeIn(trx, plan.page);
        return rows.map((row) => visibleRecord(decodeRow(resource, this.#store.dialect, row), fields));
      },
      create: async (resource, actor, body) => {
        const grant = grantOf(resource, actor, 'create');
        const values = validateRecordBody(resource, grant, body, 'create');
        const create = {
          resource,
          meta: metaOf(actor),
          grant,
          readable: readableOf(resource, actor),
          values,
          id: uuidv7(),
          now: new Date().toISOString(),
        };
        const result = (await this.#createIn(trx, events, inner, create))!;
        return visibleRecord(result.record, result.attributes);
      },
      update: async (resource, actor, id, body) => {
        const grant = grantOf(resource, actor, 'update');
        const values = validateRecordBody(resource, grant, body, 'patch');
        const readable = readableOf(resource, actor);
        const update = { resource, meta: metaOf(actor), id, values, grant, readable, precondition: undefined };
        const result = await this.#updateIn(trx, events, inner, update);
        return visibleRecord(result.record, result.attributes);
      },
      remove: async (resource, actor, id) => {
        const grant = grantOf(resource, actor, 'delete');
        await this.#removeIn(trx, events, inner, resource, metaOf(actor), id, grant, undefined, []);
      },
    };
  }

  /**
   * Creates the record, or updates the one whose unique `field` holds the body's value: race-free, the
   * insert skips a taken value in the database (ON CONFLICT DO NOTHING) and the write then updates the
   * row that holds it, in the same transaction. Needs create, and update when it updates. `withinWrite`
   * and `first` as for create.
   */
  async upsert(
    resource: Resource,
    meta: RequestMeta,
    body: unknown,
    field: string,
    clientId?: string,
    withinWrite?: WithinWrite<UpsertResult>,
    first?: FirstInWrite,
  ): Promise<UpsertResult> {
    const hooked = this.#hookedFor(resource);
    return this.#runner.run('RESOURCE_STORE_ERROR', async (trx, events) => {
      if (first) await first(trx);
      const result = await this.#upsertIn(trx, events, hooked, resource, meta, body, field, clientId);
      if (withinWrite) await withinWrite(trx, result);
      return result;
    });
  }

  async #upsertIn(
    trx: Db,
    events: RecordEvent[],
    hooked: Hooked | undefined,
    resource: Resource,
    meta: RequestMeta,
    body: unknown,
    field: string,
    clientId: string | undefined,
  ): Promise<UpsertResult> {
    const grant = resolveAccess(resource, meta.principal, 'create');
    const readable = this.#readableAfterWrite(resource, meta.principal);
    const values = validateRecordBody(resource, grant, body, 'create');
    const key = values[field];
    if (key === undefined || key === null) {
      throw new ApiError('INVALID_RESOURCE_DATA', {
        detail: `An upsert by '${field}' needs a value for it`,
        field,
      });
    }
    for (let attempt = 0; attempt < UPSERT_ATTEMPTS; attempt++) {
      const now = new Date().toISOString();
      // With hooks the holder is looked for first, so that only the write that happens runs its hooks.
      const holder = hooked ? await this.#idHolding(trx, resource, field, key) : undefined;
      if (holder === undefined) {
        const create = { resource, meta, grant, readable, values, id: clientId ?? uuidv7(), now };
        const created = await this.#createIn(trx, events, hooked, create, field);
        if (created) return { ...created, created: true };
        // Taken meanwhile by another request (or by the value a hook set): the create's hooks have run,
        // so the write is refused whole rather than turned into an update after them.
        if (hooked) {
          throw new ApiError('CONFLICT', {
            detail: `Another ${resource.name} record took this ${field} while this upsert ran; try again`,
            field,
          });
        }
      }
      const id = holder ?? (await this.#idHolding(trx, resource, field, key));
      // Removed and committed between the two statements (PostgreSQL): the insert may succeed now.
      if (id === undefined) continue;
      const updateGrant = resolveAccess(resource, meta.principal, 'update');
      const { [field]: _key, ...rest } = body as Record<string, unknown>;
      const changes = validateRecordBody(resource, updateGrant, rest, 'patch');
      const updated = await this.#updateIn(trx, events, hooked, {
        resource,
        meta,
        id,
        values: changes,
        grant: updateGrant,
        readable,
        precondition: undefined,
      });
      return { ...updated, created: false };
    }
    throw new ApiError('CONFLICT', {
      detail: `The ${resource.name} record holding this ${field} kept changing; try again`,
      field,
    });
  }

  /** The id of the live row whose unique `field` holds `value`. */
  async #idHolding(trx: Db, resource: Resource, field: string, value: unknown): Promise<string | undefined> {
    const encoded = encodeValues(resource, this.#store.dialect, { [field]: value })[field];
    let query = trx.selectFrom(resource.table).select('id').where(field, '=', encoded);
    if (resource.softDelete) query = query.where('deleted_at', 'is', null);
    const row = await query.executeTakeFirst();
    return row === undefined ? undefined : String(row.id);
  }

  /**
   * Runs several writes as one: every write `work` makes through the batch goes through the same path
   * as a single one (validation, permissions, checks, events) inside one transaction, and either all of
   * them commit with their events, in order, or none does. A write's failure is its own ApiError (the
   * caller says which write it was); `withinWrite` runs last in the same transaction, `first` before
   * any write in it.
   */
  async batch<T>(
    work: (batch: WriteBatch) => Promise<T>,
    withinWrite?: WithinWrite<T>,
    first?: FirstInWrite,
  ): Promise<T> {
    const writer = this.#batchedInserts;
    if (!writer) return this.#batchRun(work, withinWrite, first, undefined);
    let queued: QueuedCreates | undefined;
    try {
      return await this.#batchRun(work, withinWrite, first, (events) => {
        queued = new QueuedCreates(writer, this.#store.dialect, this.#runner, this.#checks, events);
        return queued;
      });
    } catch (error) {
      if (!queued?.used || !mayRunAgain(error)) throw error;
      // A set-aside row's refusal fails its whole statement without naming the write, and a write that
      // failed while creates waited may not have been the first to fail: the batch, rolled back, runs
      // again with each write made as it comes, and fails (or not) exactly as single writes would.
      return this.#batchRun(work, withinWrite, first, undefined);
    }
  }

  /**
   * One run of batch(): `queue`, when given, makes the set-aside creates of this run (in its
   * transaction, with its events); each other write first sends what waits, and so does the end.
   */
  #batchRun<T>(
    work: (batch: WriteBatch) => Promise<T>,
    withinWrite: WithinWrite<T> | undefined,
    first: FirstInWrite | undefined,
    queue: ((events: RecordEvent[]) => QueuedCreates) | undefined,
  ): Promise<T> {
    return this.#runner.run('RESOURCE_STORE_ERROR', async (trx, events) => {
      if (first) await first(trx);
      const dialect = this.#store.dialect;
      const queued = queue?.(events);
      // Every write that is not set aside sends what waits first: it may read or change those rows.
      const step = <R>(code: ErrorCode, write: () => Promise<R>) =>
        guard(dialect, code, async () => {
          if (queued) await queued.flush(trx);
          return write();
        });
      const batch: WriteBatch = {
        create: (resource, meta, body, clientId) =>
          guard(dialect, 'RESOURCE_STORE_ERROR', async () => {
            const grant = resolveAccess(resource, meta.principal, 'create');
            const readable = this.#readableAfterWrite(resource, meta.principal);
            const values = validateRecordBody(resource, grant, body, 'create');
            const create = {
              resource,
              meta,
              grant,
              readable,
              values,
              id: clientId ?? uuidv7(),
              now: new Date().toISOString(),
            };
            const setAside = queued && this.#setAside(queued, create);
            if (setAside) return setAside;
            if (queued) await queued.flush(trx);
            return (await this.#createIn(trx, events, this.#hookedFor(resource), create))!;
          }),
        upsert: (resource, meta, body, field, clientId) =>
          step('RESOURCE_STORE_ERROR', () =>
            this.#upsertIn(trx, events, this.#hookedFor(resource), resource, meta, body, field, clientId),
          ),
        update: (resource, meta, id, body, mode) =>
          step('RESOURCE_UPDATE_ERROR', () => {
            const grant = resolveAccess(resource, meta.principal, 'update');
            const readable = this.#readableAfterWrite(resource, meta.principal);
            const values = validateRecordBody(resource, grant, body, mode);
            return this.#updateIn(trx, events, this.#hookedFor(resource), {
              resource,
              meta,
              id,
              values,
              grant,
              readable,
              precondition: undefined,
            });
          }),
        remove: (resource, meta, id) =>
          step('RESOURCE_DELETE_ERROR', () =>
            this.#removeIn(
              trx,
              events,
              this.#hookedFor(resource),
              resource,
              meta,
              id,
              resolveAccess(resource, meta.principal, 'delete'),
              undefined,
              [],
            ),
          ),
      };
      const result = await work(batch);
      if (queued) await queued.flush(trx);
      if (withinWrite) await withinWrite(trx, result);
      return result;
    });
  }

  /**
   * The create set aside in `queued`, or undefined when it must be made now: a hook touches its
   * resource (hooks read and write in the transaction, and see the rows before theirs), something
   * writes with each event in the transaction, it refers to records (their checks read them), or its
   * record would fail the check rule (refused in SQL the usual way).
   */
  #setAside(queued: QueuedCreates, create: CreateIn): ReadResult | undefined {
    const { resource, meta, grant, readable, values, id, now } = create;
    if (this.#hooks?.touches(resource.name) || this.#runner.hasWriteHooks) return undefined;
    if (referencesIn(this.#registry, resource, values).length > 0) return undefined;
    return queued.add(resource, meta, grant, id, { ...values, created_at: now, updated_at: now }, readable);
  }

  /** `precondition`: If-Match, judged on the record as the caller sees it inside the write (precondition.ts). */
  async replace(
    resource: Resource,
    meta: RequestMeta,
    id: string,
    body: unknown,
    precondition?: WritePrecondition,
  ): Promise<ReadResult> {
    return this.#update(resource, meta, id, body, 'replace', precondition);
  }

  async patch(
    resource: Resource,
    meta: RequestMeta,
    id: string,
    body: unknown,
    precondition?: WritePrecondition,
  ): Promise<ReadResult> {
    return this.#update(resource, meta, id, body, 'patch', precondition);
  }

  /**
   * A record's changes from the outbox, through the caller's read permissions (record-history.ts):
   * 404 RESOURCE_NOT_FOUND, as for the record, when the caller cannot read it now.
   */
  async history(
    resource: Resource,
    meta: RequestMeta,
    id: string,
    page: { limit: number; offset: number; maxAgeMs: number },
  ): Promise<HistoryPage> {
    await this.#reads.get(resource, meta, id);
    return readRecordHistory(this.#store, resource, meta.principal, id, page);
  }

  /** Brings a soft-deleted record back, with an `updated` event (restore-record.ts); for the administrator. */
  restore(resource: Resource, meta: RequestMeta, id: string): Promise<RecordValues> {
    return restoreRecord({ store: this.#store, registry: this.#registry, runner: this.#runner }, resource, meta, id);
  }

  async remove(resource: Resource, meta: RequestMeta, id: string, precondition?: WritePrecondition): Promise<void> {
    const grant = resolveAccess(resource, meta.principal, 'delete');
    const readable = precondition ? this.#readableAfterWrite(resource, meta.principal) : [];
    const oneStatement = this.#oneStatementChanges(resource);
    // A cascade that reaches file fields is read first (their files go after the commit): not one statement.
    if (
      oneStatement &&
      !(resource.softDelete && isReferenced(this.#registry, resource)) &&
      !cascadeReachesFiles(this.#registry, resource)
    ) {
      if (await oneStatement.remove(resource, meta, id, grant, precondition, readable)) return;
    }
    const hooked = this.#hookedFor(resource);
    await this.#runner.run('RESOURCE_DELETE_ERROR', (trx, events) =>
      this.#removeIn(trx, events, hooked, resource, meta, id, grant, precondition, readable),
    );
  }

  /** A delete inside a write's transaction, with its before hooks when `hooked` and its event. */
  async #removeIn(
    trx: Db,
    events: RecordEvent[],
    hooked: Hooked | undefined,
    resource: Resource,
    meta: RequestMeta,
    id: string,
    grant: AccessGrant,
    precondition: WritePrecondition | undefined,
    readable: string[],
  ): Promise<void> {
    const find = () => this.#targets.find(trx, resource, meta.principal, id, 'delete', grant);
    const old = await readUnder(precondition, resource, id, readable, find, (record) => record);
    if (hooked?.hooks.hasBefore(resource.name, 'delete')) {
      const scope = this.#lazyScope(trx, events, hooked.hooks, hooked.depth);
      const previous = hookCopy(old);
      await hooked.hooks.before({ kind: 'delete', resource, meta, values: null, previous, scope, depth: hooked.depth });
    }
    const cascaded = cascadeReachesFiles(this.#registry, resource)
      ? await filesCascadedBy(trx, this.#store.dialect, this.#registry, resource, [id], resource.softDelete)
      : [];
    if (resource.softDelete) {
      await applySoftDeleteReferences(trx, this.#store.dialect, this.#registry, resource, id);
      const now = new Date().toISOString();
      await trx
        .updateTable(resource.table)
        .set({ deleted_at: this.#store.dialect.encode('timestamp', now) })
        .where('id', '=', id)
        .execute();
      const event = buildRecordEvent(resource.name, meta, 'deleted', id, old, { ...old, deleted_at: now });
      noteCascadedFiles(event, cascaded);
      await this.#writeEvent(trx, events, hooked, meta, event);
    } else {
      await trx.deleteFrom(resource.table).where('id', '=', id).execute();
      const event = buildRecordEvent(resource.name, meta, 'deleted', id, old, null);
      noteCascadedFiles(event, cascaded);
      await this.#writeEvent(trx, events, hooked, meta, event);
    }
  }

  #writeEvent(
    trx: Db,
    events: RecordEvent[],
    hooked: Hooked | undefined,
    meta: RequestMeta,
    event: RecordEvent,
  ): Promise<void> {
    hooked?.hooks.noteCaller(event, meta.principal);
    return this.#runner.writeEvent(trx, events, event);
  }

  /** The hooks a request's own write of `resource` runs, when some hook touches it. */
  #hookedFor(resource: Resource): Hooked | undefined {
    const hooks = this.#hooks;
    return hooks?.touches(resource.name) ? { hooks, depth: 0 } : undefined;
  }

  async #update(
    resource: Resource,
    meta: RequestMeta,
    id: string,
    body: unknown,
    mode: WriteMode,
    precondition: WritePrecondition | undefined,
  ): Promise<ReadResult> {
    const grant = resolveAccess(resource, meta.principal, 'update');
    const readable = this.#readableAfterWrite(resource, meta.principal);
    const values = validateRecordBody(resource, grant, body, mode);
    const oneStatement = this.#oneStatementChanges(resource);
    if (oneStatement) {
      const updated = await oneStatement.update(resource, meta, id, values, grant, readable, precondition);
      if (updated) return updated;
    }
    // Filled inside the write, and read by #withReferenceIssues after it: one array, not a reassignment.
    const references: Reference[] = [];
    const hooked = this.#hookedFor(resource);
    const written = this.#runner.run('RESOURCE_UPDATE_ERROR', (trx, events) =>
      this.#updateIn(trx, events, hooked, { resource, meta, id, values, grant, readable, precondition }, references),
    );
    return this.#withReferenceIssues(written, references, meta.principal);
  }

  /**
   * An update inside a write's transaction, with its before hooks when `hooked` and its event;
   * `references` gets the ones it checked.
   */
  async #updateIn(
    trx: Db,
    events: RecordEvent[],
    hooked: Hooked | undefined,
    update: UpdateIn,
    references: Reference[] = [],
  ): Promise<ReadResult> {
    const { resource, meta, id, grant, readable, precondition } = update;
    const find = () => this.#targets.find(trx, resource, meta.principal, id, 'update', grant);
    const old = await readUnder(precondition, resource, id, readable, find, (record) => record);
    let values = update.values;
    if (hooked?.hooks.hasBefore(resource.name, 'update')) {
      const given = hookCopy(values);
      const scope = this.#lazyScope(trx, events, hooked.hooks, hooked.depth);
      const previous = hookCopy(old);
      await hooked.hooks.before({
        kind: 'update',
        resource,
        meta,
        values: given,
        previous,
        scope,
        depth: hooked.depth,
      });
      values = checkHookValues(resource, given, 'update', update.values);
    }
    const changed = Object.fromEntries(
      Object.entries(values).filter(([name, value]) => !isDeepStrictEqual(old[name] ?? null, value)),
    );
    // A write that changes nothing keeps updated_at and emits no event (docs/records.md).
    if (Object.keys(changed).length === 0) return { record: old, attributes: readable };
    // A group commit may run this work again after another write of its group failed.
    references.length = 0;
    references.push(...referencesIn(this.#registry, resource, changed));
    await checkReferences(trx, this.#store.dialect, references, meta.principal);
    const now = new Date().toISOString();
    const { db, dialect } = this.#store;
    const encoded = encodeValues(resource, dialect, { ...changed, updated_at: now });
    const row = (
      await this.#store.executeIn(trx, updateByIdStatement(db, resource.table, encoded, id, columnsOf(resource)))
    )[0]!;
    const record = decodeRow(resource, this.#store.dialect, row);
    await this.#checks.enforce(trx, resource, id, grant);
    await this.#writeEvent(
      trx,
      events,
      hooked,
      meta,
      buildRecordEvent(resource.name, meta, 'updated', id, old, record),
    );
    return { record, attributes: readable };
  }

  /**
   * A foreign key refused the write (its target went between the check and the write): answered with
   * the check's own issues, as if the check had seen it gone, so every path gives the same body.
   */
  async #withReferenceIssues<T>(
    written: Promise<T>,
    references: readonly Reference[],
    principal: Principal,
  ): Promise<T> {
    try {
      return await written;
    } catch (error) {
      if (error instanceof RecordFailure && error.kind === 'missing-reference') {
        await checkReferences(this.#store.db, this.#store.dialect, references, principal);
      }
      throw error;
    }
  }

  /** The fields returned after a write: what the caller could read, or nothing beyond system fields. */
  #readableAfterWrite(resource: Resource, principal: Principal): string[] {
    try {
      return [...resolveAccess(resource, principal, 'read').fields];
    } catch (error) {
      if (error instanceof ApiError) return [];
      throw error;
    }
  }
}
