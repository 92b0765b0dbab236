// Create, list, get, replace, patch and delete records of a resource for a caller, with the caller's
// access rules applied in SQL and each change written together with its event.
import type { CompiledQuery } from 'kysely';
import { isDeepStrictEqual } from 'node:util';
import type { Action } from '../config/config-types.ts';
import { ApiError } from '../errors/api-error.ts';
import type { ErrorCode } from '../errors/error-catalogue.ts';
import type { Resource, ResourceField } from '../resources/resource.ts';
import type { ResourceRegistry } from '../resources/resource-registry.ts';
import type { Store } from '../store/create-store.ts';
import type { Db } from '../store/store-dialect.ts';
import { uuidv7 } from '../store/uuid-v7.ts';
import { mapDriverError } from '../store/map-driver-error.ts';
import { insertStatement, updateByIdStatement, type TableRows } from '../store/write-statements.ts';
import type { ConditionalChange, OneStatementWriter, RequiredRow } from '../store/one-statement-writes.ts';
import type { Principal } from '../auth/principal.ts';
import { resolveAccess } from '../permissions/resolve-access.ts';
import type { AccessGrant } from '../permissions/access-grant.ts';
import { filterToSql } from '../query/filter-to-sql.ts';
import { filterToPredicate, type RecordPredicate } from '../query/filter-to-predicate.ts';
import type { FilterNode } from '../query/filter-node.ts';
import { VisibleRows } from '../query/visible-rows.ts';
import { ListPlans, type ListPlan } from '../query/list-plan.ts';
import { ByIdQueries, type FindQueries } from '../query/by-id-queries.ts';
import { columnsOf } from '../query/record-columns.ts';
import { cached } from '../query/weak-cache.ts';
import { parseListQuery, type RawQuery } from '../query/parse-list-query.ts';
import { DEFAULT_LIKE_PATTERN_LIMITS, type LikePatternLimits } from '../query/like-pattern-limits.ts';
import type { ListQuery } from '../query/list-query.ts';
import { UUID_PATTERN } from '../resources/field-types/uuid-field.ts';
import { appendEvent, EVENTS_TABLE, eventRowOf, notifyReturning } from '../events/outbox.ts';
import { buildRecordEvent } from '../events/build-record-event.ts';
import type { EventKind, RecordEvent, RecordValues } from '../events/record-event.ts';
import { decodeRow, encodeValues } from './record-codec.ts';
import { MarkedReadCache } from './marked-read-cache.ts';
import { pageWeight } from './page-weight.ts';
import { PointReadBatcher } from '../store/point-read-batcher.ts';
import { noteResourceWrite } from './write-generation.ts';
import { validateRecordBody, type WriteMode } from './validate-record-body.ts';
import { checkReferences, mayReferToAnyRow, type Reference } from './check-references.ts';

export interface RequestMeta {
  principal: Principal;
  requestId?: string;
  traceId?: string;
}

export interface ListResult {
  records: RecordValues[];
  total: number;
  query: ListQuery;
  /** Attribute names to show: the requested or readable fields. */
  attributes: string[];
}

export interface ReadResult {
  record: RecordValues;
  attributes: string[];
}

/** Receives events once their transaction has committed (fan-out to streams). */
export type CommittedEventsListener = (events: RecordEvent[]) => void;

/** Where a listener's failure is reported (the app's logger). */
export interface ListenerErrorLog {
  error(details: object, message: string): void;
}

/** Receives events written in a transaction that will not commit them (rolled back, or run again). */
export type DiscardedEventsListener = (events: RecordEvent[]) => void;

/** Runs inside the change's transaction right after its event is written. */
export type EventWrittenHook = (trx: Db, event: RecordEvent) => Promise<void>;

/**
 * Rows to write with an event, in its transaction (webhook deliveries): written with the event's own
 * insert, in the same statement where the database allows, so they cost no round trip of their own.
 */
export type EventRowsHook = (event: RecordEvent) => TableRows | undefined;

type Row = Record<string, unknown>;

/** The row a write targets: decoded, as stored (its columns), and its version when read for a versioned change. */
interface WriteTarget {
  record: RecordValues;
  row: Row;
  version: string;
}

/** A one-statement write whose conditions failed (a reference missing, the row changed since read): nothing was written. */
class NotApplied extends Error {}

interface PageRead {
  records: RecordValues[];
  total: number;
}

export class RecordService {
  readonly #store: Store;
  readonly #registry: ResourceRegistry;
  readonly #log: ListenerErrorLog | undefined;
  readonly #likeLimits: LikePatternLimits;
  readonly #listeners: CommittedEventsListener[] = [];
  readonly #discardListeners: DiscardedEventsListener[] = [];
  readonly #hooks: EventWrittenHook[] = [];
  readonly #rowHooks: EventRowsHook[] = [];
  /** The PostgreSQL channel each event's row notifies when it commits (create-event-hub.ts), if any. */
  #notifyChannel: string | undefined;
  /** Lists planned and records read by id, their statements compiled once (query/). */
  readonly #lists: ListPlans;
  readonly #byId: ByIdQueries;
  readonly #pointReads = new PointReadBatcher<FindQueries>((queries, ids) =>
    this.#read(ids.length === 1 || !queries.many ? queries.one.bind(ids[0]) : queries.many.bind(ids)));
  readonly #checkPredicates = new WeakMap<FilterNode, RecordPredicate>();
  /** Where the store makes a write with its event in one statement (PostgreSQL), its writer. */
  readonly #writer: OneStatementWriter | undefined;
  /** meta.total is the expensive part of a list: reused while the database has not changed. */
  readonly #counts = new MarkedReadCache<number>({ maxEntries: 1000 });
  /**
   * Whole pages (rows and total), reused the same way. On PostgreSQL reading the mark is a round trip
   * of its own, but a full page read it anyway for its count, and a reused page skips decoding rows,
   * building the document and serializing it (most of a list's time and all of its garbage). Bounded
   * by their size (about 16 MB of text; their JSON text, kept beside them, is about as much again).
   */
  readonly #pages = new MarkedReadCache<PageRead>({ maxEntries: 256, weigh: (page) => pageWeight(page.records), maxWeight: 8_000_000 });

  constructor(store: Store, registry: ResourceRegistry, log?: ListenerErrorLog, likeLimits: LikePatternLimits = DEFAULT_LIKE_PATTERN_LIMITS) {
    this.#likeLimits = likeLimits;
    this.#store = store;
    this.#registry = registry;
    this.#log = log;
    this.#writer = store.oneStatementWriter?.(() => notifyReturning(this.#notifyChannel));
    const visible = new VisibleRows(store.dialect);
    this.#lists = new ListPlans(store.db, store.dialect, visible);
    this.#byId = new ByIdQueries(store.db, store.dialect, visible, this.#writer?.rowVersion);
  }

  onCommitted(listener: CommittedEventsListener): void {
    this.#listeners.push(listener);
  }

  /** Events whose rows were written but rolled back: what a hook set aside for them (leases) can go. */
  onDiscarded(listener: DiscardedEventsListener): void {
    this.#discardListeners.push(listener);
  }

  onEventWritten(hook: EventWrittenHook): void {
    this.#hooks.push(hook);
  }

  onEventRows(hook: EventRowsHook): void {
    this.#rowHooks.push(hook);
  }

  /** Every event written from now on also sends NOTIFY on `channel` at its commit (PostgreSQL). */
  notifyOnCommit(channel: string): void {
    this.#notifyChannel = channel;
  }

  /** Rows of a read outside any transaction: at once where the store can, else through Kysely. */
  async #read<R>(query: CompiledQuery<R>): Promise<R[]> {
    return (this.#store.readNow(query) as R[] | undefined) ?? (await this.#store.db.executeQuery(query)).rows;
  }

  async list(resource: Resource, meta: RequestMeta, raw: RawQuery): Promise<ListResult> {
    const grant = resolveAccess(resource, meta.principal, 'read');
    const query = parseListQuery(raw, resource, grant.fields, this.#likeLimits);
    const attributes = query.fields ?? [...grant.fields];
    return this.#guard('RESOURCE_FETCH_ERROR', async () => {
      const { db, dialect } = this.#store;
      const compiled = this.#lists.planOf(resource, grant.filter, query, attributes);
      const readPage = (mark?: string) => this.#readPage(resource, query, compiled, mark);
      const { records, total } = await this.#pages.get(db, dialect, compiled.pageKey, readPage);
      return { records, total, query, attributes };
    });
  }

  /** Cached pages are shared between requests: nothing downstream may change their records. */
  async #readPage(resource: Resource, query: ListQuery, compiled: ListPlan, mark: string | undefined): Promise<PageRead> {
    const { db, dialect } = this.#store;
    const rows = await this.#read(compiled.page);
    let total: number;
    if (rows.length < query.limit && (rows.length > 0 || query.offset === 0)) {
      // A page that is not full (and not past the end) holds the last matching row: it gives the total.
      total = query.offset + rows.length;
    } else {
      // Under the page's own mark (read before the page): no second mark read, and a change that
      // lands meanwhile only makes both older.
      total = await this.#counts.get(db, dialect, compiled.countKey, async () => {
        if (compiled.countPlan) return compiled.countPlan.take((query) => this.#read(query));
        const counted = await this.#read(compiled.count);
        return Number(counted[0]?.total ?? 0);
      }, mark);
    }
    return { records: rows.map((row) => decodeRow(resource, dialect, row)), total };
  }

  async get(resource: Resource, meta: RequestMeta, id: string): Promise<ReadResult> {
    const grant = resolveAccess(resource, meta.principal, 'read');
    const row = await this.#guard('RESOURCE_FIND_ERROR', async () => {
      if (!UUID_PATTERN.test(id)) return undefined;
      const queries = this.#byId.find(resource, grant.filter);
      return queries.many ? this.#pointReads.read(queries, id) : (await this.#read(queries.one.bind(id)))[0];
    });
    if (!row) throw notFound(resource, id);
    return { record: decodeRow(resource, this.#store.dialect, row), attributes: [...grant.fields] };
  }

  async create(resource: Resource, meta: RequestMeta, body: unknown): Promise<ReadResult> {
    const grant = resolveAccess(resource, meta.principal, 'create');
    const readable = this.#readableAfterWrite(resource, meta.principal);
    const values = validateRecordBody(resource, grant, body, 'create');
    const id = uuidv7();
    const now = new Date().toISOString();
    const writer = this.#oneStatementWriter();
    if (writer) {
      const created = await this.#createInOneStatement(writer, resource, meta, grant, id, { ...values, created_at: now, updated_at: now }, readable);
      if (created) return created;
    }
    const references = this.#referencesIn(resource, values);
    const written = this.#write('RESOURCE_STORE_ERROR', async (trx, events) => {
      await checkReferences(trx, this.#store.dialect, references, meta.principal);
      // RETURNING gives the row as stored without reading it back (one round trip fewer).
      const { db, dialect } = this.#store;
      const encoded = { id, ...encodeValues(resource, dialect, { ...values, created_at: now, updated_at: now }) };
      const row = (await this.#store.executeIn(trx, insertStatement(db, resource.table, [encoded], columnsOf(resource))))[0]!;
      const record = decodeRow(resource, this.#store.dialect, row);
      await this.#enforceCheck(trx, resource, id, grant);
      await this.#event(trx, events, resource, meta, 'created', id, null, record);
      return { record, attributes: readable };
    });
    // Without references no foreign key can refuse the write: no wrapper, no extra promise turn.
    return references.length === 0 ? written : this.#withReferenceIssues(written, references, meta.principal);
  }

  /**
   * Where the store offers it (PostgreSQL), when nothing has to be read inside the write's transaction besides the rows it refers
   * to (no hook that writes with the event; a check rule is decided beforehand, #passesCheck): the
   * write and its event, the event's deliveries and its NOTIFY go in one statement that commits by
   * itself, shared with the pass's other such writes (statement-groups.ts). A create is then one round
   * trip instead of four or more (BEGIN, each reference's read, the row, the event, COMMIT); a patch
   * or delete two (the row's read, then the change at the version read) instead of five. Each round
   * trip cost svc ~65-100 µs of CPU and a wait. When the statement's conditions fail (a reference
   * missing, the row changed since it was read), it writes nothing, and the write runs the usual way,
   * in a transaction that reports or locks.
   */
  #oneStatementWriter(): OneStatementWriter | undefined {
    return this.#hooks.length === 0 ? this.#writer : undefined;
  }

  /**
   * Whether `record`, as it would be stored, satisfies the grant's check rule, decided in memory by the
   * predicate the streams use (it selects exactly what the SQL filter selects: filter-agreement.test.ts).
   * A one-statement write goes ahead only when it does; otherwise the usual transaction writes, checks
   * in SQL and answers as it always has.
   */
  #passesCheck(resource: Resource, grant: AccessGrant, record: RecordValues): boolean {
    if (!grant.check) return true;
    return cached(this.#checkPredicates, grant.check, () => filterToPredicate(grant.check!, resource))(record);
  }

  /** The event is built before the row is stored, from the row as the database will give it back (OneStatementWriter.rowAsStored). */
  async #createInOneStatement(writer: OneStatementWriter, resource: Resource, meta: RequestMeta, grant: AccessGrant, id: string, values: RecordValues, readable: string[]): Promise<ReadResult | undefined> {
    const { dialect } = this.#store;
    const columns = columnsOf(resource);
    const encoded = { id, ...encodeValues(resource, dialect, values) };
    const record = decodeRow(resource, dialect, writer.rowAsStored(resource, columns, encoded));
    if (!this.#passesCheck(resource, grant, record)) return undefined;
    if (!this.#referableByStatement(resource, values, meta.principal)) return undefined;
    const event = buildRecordEvent(resource.name, meta, 'created', id, null, record);
    const requires = this.#requiredRows(resource, values);
    const rows = await this.#writeWithEvent('RESOURCE_STORE_ERROR', event, (parts) =>
      requires.length === 0
        ? writer.create(resource.table, encoded, parts, columns)
        : writer.change({ kind: 'insert', table: resource.table, row: encoded, requires }, parts, columns),
    );
    return rows && { record: decodeRow(resource, dialect, rows[0]!), attributes: readable };
  }

  async replace(resource: Resource, meta: RequestMeta, id: string, body: unknown): Promise<ReadResult> {
    return this.#update(resource, meta, id, body, 'replace');
  }

  async patch(resource: Resource, meta: RequestMeta, id: string, body: unknown): Promise<ReadResult> {
    return this.#update(resource, meta, id, body, 'patch');
  }

  async remove(resource: Resource, meta: RequestMeta, id: string): Promise<void> {
    const grant = resolveAccess(resource, meta.principal, 'delete');
    const writer = this.#oneStatementWriter();
    if (writer && !(resource.softDelete && this.#isReferenced(resource))) {
      if (await this.#removeByVersion(writer, resource, meta, id, grant)) return;
    }
    await this.#write('RESOURCE_DELETE_ERROR', async (trx, events) => {
      const old = await this.#findForWrite(trx, resource, meta.principal, id, 'delete', grant);
      if (resource.softDelete) {
        await this.#applySoftDeleteReferences(trx, resource, id);
        const now = new Date().toISOString();
        await trx
          .updateTable(resource.table)
          .set({ deleted_at: this.#store.dialect.encode('timestamp', now) })
          .where('id', '=', id)
          .execute();
        await this.#event(trx, events, resource, meta, 'deleted', id, old, { ...old, deleted_at: now });
      } else {
        await trx.deleteFrom(resource.table).where('id', '=', id).execute();
        await this.#event(trx, events, resource, meta, 'deleted', id, old, null);
      }
    });
  }

  async #update(resource: Resource, meta: RequestMeta, id: string, body: unknown, mode: WriteMode): Promise<ReadResult> {
    const grant = resolveAccess(resource, meta.principal, 'update');
    const readable = this.#readableAfterWrite(resource, meta.principal);
    const values = validateRecordBody(resource, grant, body, mode);
    const writer = this.#oneStatementWriter();
    if (writer) {
      const updated = await this.#updateByVersion(writer, resource, meta, id, values, grant, readable);
      if (updated) return updated;
    }
    // Filled inside the write, and read by #withReferenceIssues after it: one array, not a reassignment.
    const references: Reference[] = [];
    const written = this.#write('RESOURCE_UPDATE_ERROR', async (trx, events) => {
      const old = await this.#findForWrite(trx, resource, meta.principal, id, 'update', grant);
      const changed = Object.fromEntries(Object.entries(values).filter(([name, value]) => !isDeepStrictEqual(old[name] ?? null, value)));
      // A write that changes nothing keeps updated_at and emits no event (docs/records.md).
      if (Object.keys(changed).length === 0) return { record: old, attributes: readable };
      // A group commit may run this work again after another write of its group failed.
      references.length = 0;
      references.push(...this.#referencesIn(resource, changed));
      await checkReferences(trx, this.#store.dialect, references, meta.principal);
      const now = new Date().toISOString();
      const { db, dialect } = this.#store;
      const encoded = encodeValues(resource, dialect, { ...changed, updated_at: now });
      const row = (await this.#store.executeIn(trx, updateByIdStatement(db, resource.table, encoded, id, columnsOf(resource))))[0]!;
      const record = decodeRow(resource, this.#store.dialect, row);
      await this.#enforceCheck(trx, resource, id, grant);
      await this.#event(trx, events, resource, meta, 'updated', id, old, record);
      return { record, attributes: readable };
    });
    return this.#withReferenceIssues(written, references, meta.principal);
  }

  /** The update in one statement at the version read; undefined when the row changed after it was read or a reference is missing. */
  async #updateByVersion(writer: OneStatementWriter, resource: Resource, meta: RequestMeta, id: string, values: RecordValues, grant: AccessGrant, readable: string[]): Promise<ReadResult | undefined> {
    const target = await this.#guard('RESOURCE_UPDATE_ERROR', () => this.#targetOfWrite(this.#store.db, resource, meta.principal, id, 'update', grant, true));
    const old = target.record;
    const changed = Object.fromEntries(Object.entries(values).filter(([name, value]) => !isDeepStrictEqual(old[name] ?? null, value)));
    if (Object.keys(changed).length === 0) return { record: old, attributes: readable };
    const { dialect } = this.#store;
    const encoded = encodeValues(resource, dialect, { ...changed, updated_at: new Date().toISOString() });
    // The row as the database will give it back: the version read, with the changed columns as stored.
    const record = decodeRow(resource, dialect, { ...target.row, ...writer.rowAsStored(resource, Object.keys(encoded), encoded) });
    if (!this.#passesCheck(resource, grant, record)) return undefined;
    if (!this.#referableByStatement(resource, changed, meta.principal)) return undefined;
    const change: ConditionalChange = { kind: 'update', table: resource.table, id, version: target.version, values: encoded, requires: this.#requiredRows(resource, changed) };
    const event = buildRecordEvent(resource.name, meta, 'updated', id, old, record);
    const rows = await this.#writeWithEvent('RESOURCE_UPDATE_ERROR', event, (parts) => writer.change(change, parts, columnsOf(resource)));
    return rows && { record: decodeRow(resource, dialect, rows[0]!), attributes: readable };
  }

  /** The delete in one statement at the version read; false when the row changed after it was read. */
  async #removeByVersion(writer: OneStatementWriter, resource: Resource, meta: RequestMeta, id: string, grant: AccessGrant): Promise<boolean> {
    const target = await this.#guard('RESOURCE_DELETE_ERROR', () => this.#targetOfWrite(this.#store.db, resource, meta.principal, id, 'delete', grant, true));
    const old = target.record;
    let change: ConditionalChange = { kind: 'delete', table: resource.table, id, version: target.version };
    let event: RecordEvent;
    if (resource.softDelete) {
      const now = new Date().toISOString();
      change = { ...change, kind: 'update', values: { deleted_at: this.#store.dialect.encode('timestamp', now) }, requires: [] };
      event = buildRecordEvent(resource.name, meta, 'deleted', id, old, { ...old, deleted_at: now });
    } else {
      event = buildRecordEvent(resource.name, meta, 'deleted', id, old, null);
    }
    const written = await this.#writeWithEvent('RESOURCE_DELETE_ERROR', event, (parts) => writer.change(change, parts, ['id']));
    return written !== undefined;
  }

  /**
   * Runs the one statement (`execute`) that writes a change with `event` and the rows its hooks add
   * (`parts`: the event's row first): the rows it answers, or undefined when its conditions failed and
   * it wrote nothing.
   */
  async #writeWithEvent(code: ErrorCode, event: RecordEvent, execute: (parts: TableRows[]) => Row[] | Promise<Row[]>): Promise<Row[] | undefined> {
    try {
      return await this.#write(
        code,
        async (_db, events) => {
          events.push(event);
          const rows = await execute([{ table: EVENTS_TABLE, rows: [eventRowOf(event)] }, ...this.#rowsWith(event)]);
          // Nothing was written: the event and what its hooks set aside go (#write discards them on a throw).
          if (rows.length === 0) throw new NotApplied();
          return rows;
        },
        true,
      );
    } catch (error) {
      if (error instanceof NotApplied) return undefined;
      throw error;
    }
  }

  /** The rows `values` refer to, which must exist (and not be soft-deleted) for the write to apply. */
  #requiredRows(resource: Resource, values: RecordValues): RequiredRow[] {
    return this.#referencesIn(resource, values).map(({ target, id }) => ({ table: target.table, id, live: target.softDelete }));
  }

  /** The relation fields `values` set to a record id, with the resource each refers to. */
  #referencesIn(resource: Resource, values: RecordValues): { name: string; target: Resource; id: unknown }[] {
    const references: { name: string; target: Resource; id: unknown }[] = [];
    for (const [name, id] of Object.entries(values)) {
      const field = resource.fields.get(name);
      if (field?.definition.type !== 'relation' || id === null || id === undefined) continue;
      const target = this.#registry.find(field.definition.resource ?? '');
      if (target) references.push({ name, target, id });
    }
    return references;
  }

  /** Some resource has a relation to `resource` (a soft delete applies their onDelete rules itself). */
  #isReferenced(resource: Resource): boolean {
    return this.#referrers(resource).next().done !== true;
  }

  /** The relation fields of every resource that refer to `resource`. */
  *#referrers(resource: Resource): Generator<{ child: Resource; field: ResourceField }> {
    for (const child of this.#registry.all()) {
      for (const field of child.fields.values()) {
        if (field.definition.type === 'relation' && field.definition.resource === resource.name) yield { child, field };
      }
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

  /** The row a write targets, locked where the database can: 404 when the caller cannot read it, 403 when it is outside the action's filter. */
  async #findForWrite(trx: Db, resource: Resource, principal: Principal, id: string, action: Action, grant: AccessGrant): Promise<RecordValues> {
    return (await this.#targetOfWrite(trx, resource, principal, id, action, grant, false)).record;
  }

  /**
   * #findForWrite's read, as the record and the row as stored (its columns only); `versioned` reads it
   * without a lock, with its version (OneStatementWriter.rowVersion) for a change made at that version.
   */
  async #targetOfWrite(trx: Db, resource: Resource, principal: Principal, id: string, action: Action, grant: AccessGrant, versioned: boolean): Promise<WriteTarget> {
    if (!UUID_PATTERN.test(id)) throw notFound(resource, id);
    let readFilter: FilterNode;
    try {
      readFilter = resolveAccess(resource, principal, 'read').filter;
    } catch {
      // Without read access the row still exists for the action's own filter.
      readFilter = grant.filter;
    }
    const dialect = this.#store.dialect;
    const queries = this.#byId.writeTarget(resource, readFilter, grant.filter);
    // Unlocked reads of a pass share one round trip with each other and with the pass's reads by id.
    const byVersion = versioned ? queries.versioned : undefined;
    const row = byVersion
      ? byVersion.many
        ? await this.#pointReads.read(byVersion, id)
        : (await this.#read(byVersion.one.bind(id)))[0]
      : (await this.#store.executeIn(trx, queries.locking.bind(id)))[0];
    if (!row || Number(row.__readable) !== 1) throw notFound(resource, id);
    if (Number(row.__allowed) !== 1) throw new ApiError('FORBIDDEN', `This caller may not ${action} ${resource.name}/${id}`);
    const stored: Row = {};
    for (const column of columnsOf(resource)) stored[column] = row[column];
    return { record: decodeRow(resource, dialect, row), row: stored, version: String(row.__version) };
  }

  async #enforceCheck(trx: Db, resource: Resource, id: string, grant: AccessGrant): Promise<void> {
    if (!grant.check) return;
    const row = await trx
      .selectFrom(resource.table)
      .select('id')
      .where('id', '=', id)
      .where(filterToSql(grant.check, resource, this.#store.dialect))
      .executeTakeFirst();
    if (!row) throw new ApiError('FORBIDDEN', `The record as written does not satisfy the ${resource.name} check rule`);
  }

  /**
   * Whether the one-statement write may judge `values`' references: it requires only that the rows
   * exist, so it serves callers who may read every row of each target; others go through the
   * transaction, whose check also applies their read filter.
   */
  #referableByStatement(resource: Resource, values: RecordValues, principal: Principal): boolean {
    return this.#referencesIn(resource, values).every(({ target }) => mayReferToAnyRow(target, principal));
  }

  /**
   * A foreign key refused the write (its target went between the check and the write): answered with
   * the check's own issues, as if the check had seen it gone, so every path gives the same body.
   */
  async #withReferenceIssues<T>(written: Promise<T>, references: readonly Reference[], principal: Principal): Promise<T> {
    try {
      return await written;
    } catch (error) {
      if (error instanceof ApiError && error.code === 'RELATION_REFERENCE_ERROR' && error.issues.every((issue) => issue.pointer === undefined)) {
        await checkReferences(this.#store.db, this.#store.dialect, references, principal);
      }
      throw error;
    }
  }

  /** Soft delete keeps the row, so the database's ON DELETE rules do not fire: apply them here. */
  async #applySoftDeleteReferences(trx: Db, resource: Resource, id: string): Promise<void> {
    for (const { child, field } of this.#referrers(resource)) {
      const action = field.definition.onDelete ?? 'restrict';
      let live = trx.selectFrom(child.table).select('id').where(field.name, '=', id);
      if (child.softDelete) live = live.where('deleted_at', 'is', null);
      if (action === 'restrict') {
        if (await live.limit(1).executeTakeFirst()) {
          throw new ApiError('CONFLICT', `${resource.name}/${id} is still referenced by ${child.name}.${field.name}`);
        }
      } else if (action === 'set_null') {
        await trx.updateTable(child.table).set({ [field.name]: null }).where(field.name, '=', id).execute();
      } else if (child.softDelete) {
        await trx
          .updateTable(child.table)
          .set({ deleted_at: this.#store.dialect.encode('timestamp', new Date().toISOString()) })
          .where(field.name, '=', id)
          .where('deleted_at', 'is', null)
          .execute();
      } else {
        await trx.deleteFrom(child.table).where(field.name, '=', id).execute();
      }
    }
  }

  /**
   * Writes the change's event with its hooks' rows, into `events` first: should the rows or a later
   * hook fail, the write discards the event with what its row hooks set aside (the worker's leases).
   */
  async #event(trx: Db, events: RecordEvent[], resource: Resource, meta: RequestMeta, kind: EventKind, id: string, old: RecordValues | null, next: RecordValues | null): Promise<void> {
    const event = buildRecordEvent(resource.name, meta, kind, id, old, next);
    events.push(event);
    await appendEvent(this.#store, trx, event, this.#notifyChannel, this.#rowsWith(event));
    for (const hook of this.#hooks) await hook(trx, event);
  }

  /** The rows the row hooks write with `event` (its webhook deliveries). */
  #rowsWith(event: RecordEvent): TableRows[] {
    const alongside: TableRows[] = [];
    for (const hook of this.#rowHooks) {
      const rows = hook(event);
      if (rows && rows.rows.length > 0) alongside.push(rows);
    }
    return alongside;
  }

  /**
   * Runs a record write and reports its events once committed. `alone`: `work` is one statement, run
   * on the database without a transaction of its own (it commits by itself).
   */
  async #write<T>(code: ErrorCode, work: (trx: Db, events: RecordEvent[]) => Promise<T>, alone = false): Promise<T> {
    const events: RecordEvent[] = [];
    const discard = () => {
      if (events.length === 0) return;
      const gone = events.splice(0);
      this.#tell(this.#discardListeners, gone, 'a listener for discarded events failed');
    };
    // Before and after: a count taken while this transaction runs is never reused after it.
    noteResourceWrite(this.#store.db);
    // The work may run again when its group is rolled back (Store.transact): a run starts with no events.
    const run = (trx: Db) => {
      discard();
      return work(trx, events);
    };
    const result = await this.#guard(code, () => (alone ? run(this.#store.db) : this.#store.transact(run)))
      .catch((error: unknown) => {
        discard();
        throw error;
      })
      .finally(() => noteResourceWrite(this.#store.db));
    if (events.length > 0) this.#tell(this.#listeners, events, 'a listener for committed events failed');
    return result;
  }

  /**
   * Every listener hears of the events, whatever another one does: the write is committed (or rolled
   * back) already, so a listener's failure is logged, never the write's answer, and never keeps the
   * listeners after it (the stream hub, the webhook worker) from their share.
   */
  #tell(listeners: readonly ((events: RecordEvent[]) => void)[], events: RecordEvent[], message: string): void {
    for (const listener of listeners) {
      try {
        listener(events);
      } catch (error) {
        this.#log?.error({ err: error, eventIds: events.map((event) => event.id) }, message);
      }
    }
  }

  async #guard<T>(code: ErrorCode, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw error instanceof ApiError || error instanceof NotApplied ? error : mapDriverError(this.#store.dialect, error, code);
    }
  }
}

function notFound(resource: Resource, id: string): ApiError {
  return new ApiError('RESOURCE_NOT_FOUND', `No ${resource.name} record with id '${id}'`);
}
