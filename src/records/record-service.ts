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
import { insertStatement, updateByIdStatement } from '../store/write-statements.ts';
import type { Principal } from '../model/principal.ts';
import { resolveAccess } from '../permissions/resolve-access.ts';
import { VisibleRows } from '../query/visible-rows.ts';
import { ListPlans } from '../query/list-plan.ts';
import { ByIdQueries } from '../query/by-id-queries.ts';
import { columnsOf } from '../query/record-columns.ts';
import { buildRecordEvent } from '../events/build-record-event.ts';
import { decodeRow, encodeValues } from './record-codec.ts';
import { validateRecordBody, type WriteMode } from './validate-record-body.ts';
import { checkReferences, type Reference } from './check-references.ts';
import { applySoftDeleteReferences, isReferenced, referencesIn } from './relation-references.ts';
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
import type { ListResult, ReadResult, RequestMeta } from './record-results.ts';
import type { ExportedRecords } from './record-export.ts';
import type { AggregateGroup } from './aggregate-groups.ts';
import type { AggregateQuery } from '../query/aggregate-query.ts';
import type { ListQuery } from '../query/list-query.ts';
import { readUnder, type WritePrecondition } from './precondition.ts';

export type {
  CommittedEventsListener,
  DiscardedEventsListener,
  EventRowsHook,
  EventWrittenHook,
  ListenerErrorLog,
} from './change-runner.ts';
export type { ListResult, ReadResult, RequestMeta } from './record-results.ts';
export type { ListRead, ListScope } from './record-reads.ts';
export type { ExportedRecords } from './record-export.ts';
export type { AggregateGroup } from './aggregate-groups.ts';

/** Work done in a create's own transaction with what it wrote (record-service.ts, create). */
export type WithinWrite = (trx: Db, result: ReadResult) => Promise<void>;

export class RecordService {
  readonly #store: Store;
  readonly #registry: ResourceRegistry;
  readonly #runner: ChangeRunner;
  readonly #reads: RecordReads;
  readonly #targets: WriteTargets;
  readonly #checks: CheckRule;
  /** Where the store makes writes in one statement (PostgreSQL). */
  readonly #oneStatement: OneStatementChanges | undefined;

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
    this.#reads = new RecordReads(store, new ListPlans(db, dialect, visible), byId, visible, includeBounds);
    this.#targets = new WriteTargets(store, byId, this.#reads);
    this.#checks = new CheckRule(dialect);
    this.#oneStatement =
      writer && new OneStatementChanges(store, registry, writer, this.#runner, this.#checks, this.#targets);
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
  #oneStatementChanges(): OneStatementChanges | undefined {
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
    first?: (trx: Db) => Promise<void>,
  ): Promise<ReadResult> {
    const grant = resolveAccess(resource, meta.principal, 'create');
    const readable = this.#readableAfterWrite(resource, meta.principal);
    const values = validateRecordBody(resource, grant, body, 'create');
    const id = clientId ?? uuidv7();
    const now = new Date().toISOString();
    const oneStatement = withinWrite || first ? undefined : this.#oneStatementChanges();
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
      await checkReferences(trx, this.#store.dialect, references, meta.principal);
      // RETURNING gives the row as stored without reading it back (one round trip fewer).
      const { db, dialect } = this.#store;
      const encoded = { id, ...encodeValues(resource, dialect, { ...values, created_at: now, updated_at: now }) };
      const row = (
        await this.#store.executeIn(trx, insertStatement(db, resource.table, [encoded], columnsOf(resource)))
      )[0]!;
      const record = decodeRow(resource, this.#store.dialect, row);
      await this.#checks.enforce(trx, resource, id, grant);
      await this.#runner.writeEvent(trx, events, buildRecordEvent(resource.name, meta, 'created', id, null, record));
      const result = { record, attributes: readable };
      if (withinWrite) await withinWrite(trx, result);
      return result;
    });
    // Without references no foreign key can refuse the write: no wrapper, no extra promise turn.
    return references.length === 0 ? written : this.#withReferenceIssues(written, references, meta.principal);
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

  async remove(resource: Resource, meta: RequestMeta, id: string, precondition?: WritePrecondition): Promise<void> {
    const grant = resolveAccess(resource, meta.principal, 'delete');
    const readable = precondition ? this.#readableAfterWrite(resource, meta.principal) : [];
    const oneStatement = this.#oneStatementChanges();
    if (oneStatement && !(resource.softDelete && isReferenced(this.#registry, resource))) {
      if (await oneStatement.remove(resource, meta, id, grant, precondition, readable)) return;
    }
    await this.#runner.run('RESOURCE_DELETE_ERROR', async (trx, events) => {
      const find = () => this.#targets.find(trx, resource, meta.principal, id, 'delete', grant);
      const old = await readUnder(precondition, resource, id, readable, find, (record) => record);
      if (resource.softDelete) {
        await applySoftDeleteReferences(trx, this.#store.dialect, this.#registry, resource, id);
        const now = new Date().toISOString();
        await trx
          .updateTable(resource.table)
          .set({ deleted_at: this.#store.dialect.encode('timestamp', now) })
          .where('id', '=', id)
          .execute();
        await this.#runner.writeEvent(
          trx,
          events,
          buildRecordEvent(resource.name, meta, 'deleted', id, old, { ...old, deleted_at: now }),
        );
      } else {
        await trx.deleteFrom(resource.table).where('id', '=', id).execute();
        await this.#runner.writeEvent(trx, events, buildRecordEvent(resource.name, meta, 'deleted', id, old, null));
      }
    });
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
    const oneStatement = this.#oneStatementChanges();
    if (oneStatement) {
      const updated = await oneStatement.update(resource, meta, id, values, grant, readable, precondition);
      if (updated) return updated;
    }
    // Filled inside the write, and read by #withReferenceIssues after it: one array, not a reassignment.
    const references: Reference[] = [];
    const written = this.#runner.run('RESOURCE_UPDATE_ERROR', async (trx, events) => {
      const find = () => this.#targets.find(trx, resource, meta.principal, id, 'update', grant);
      const old = await readUnder(precondition, resource, id, readable, find, (record) => record);
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
      await this.#runner.writeEvent(trx, events, buildRecordEvent(resource.name, meta, 'updated', id, old, record));
      return { record, attributes: readable };
    });
    return this.#withReferenceIssues(written, references, meta.principal);
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
