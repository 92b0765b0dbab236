// Creates, updates and deletes made with their event in one statement that commits by itself, where the
// store offers such writes (Store.oneStatementWriter) and nothing has to be read inside the write's
// transaction besides the rows it refers to (no hook that writes with the event; a check rule decided
// beforehand). The write, its event, the event's deliveries and its NOTIFY go in one statement, shared
// with the pass's other such writes: a create is one round trip instead of four or more (BEGIN, each
// reference's read, the row, the event, COMMIT); a patch or delete two (the row's read, then the change
// at the version read) instead of five. Each round trip cost svc ~65-100 µs of CPU and a wait. When the
// statement's conditions fail (a reference missing, the row changed since it was read), it writes
// nothing, each method answers undefined, and the write runs the usual way, in a transaction that
// reports or locks.
import { isDeepStrictEqual } from 'node:util';
import type { Resource } from '../resources/resource.ts';
import type { ResourceRegistry } from '../resources/resource-registry.ts';
import type { Principal } from '../model/principal.ts';
import type { Store } from '../store/create-store.ts';
import type { ConditionalChange, OneStatementWriter } from '../store/one-statement-writes.ts';
import type { AccessGrant } from '../model/access-grant.ts';
import { columnsOf } from '../query/record-columns.ts';
import { buildRecordEvent } from '../events/build-record-event.ts';
import type { RecordEvent } from '../model/record-event.ts';
import type { RecordValues } from '../model/record-values.ts';
import { decodeRow, encodeValues } from './record-codec.ts';
import { guard } from './driver-error-guard.ts';
import { mayReferToAnyRow } from './check-references.ts';
import { referencesIn, requiredRows } from './relation-references.ts';
import type { ChangeRunner } from './change-runner.ts';
import type { CheckRule } from './check-rule.ts';
import type { WriteTargets } from './write-targets.ts';
import type { ReadResult, RequestMeta } from './record-results.ts';
import { readUnder, type WritePrecondition } from './precondition.ts';

export class OneStatementChanges {
  readonly #store: Store;
  readonly #registry: ResourceRegistry;
  readonly #writer: OneStatementWriter;
  readonly #runner: ChangeRunner;
  readonly #checks: CheckRule;
  readonly #targets: WriteTargets;

  constructor(
    store: Store,
    registry: ResourceRegistry,
    writer: OneStatementWriter,
    runner: ChangeRunner,
    checks: CheckRule,
    targets: WriteTargets,
  ) {
    this.#store = store;
    this.#registry = registry;
    this.#writer = writer;
    this.#runner = runner;
    this.#checks = checks;
    this.#targets = targets;
  }

  /** The event is built before the row is stored, from the row as the database will give it back (OneStatementWriter.rowAsStored). */
  async create(
    resource: Resource,
    meta: RequestMeta,
    grant: AccessGrant,
    id: string,
    values: RecordValues,
    readable: string[],
    /** Told of the create's event before it is written (after-commit hooks note their caller by it). */
    noteEvent?: (event: RecordEvent) => void,
  ): Promise<ReadResult | undefined> {
    const { dialect } = this.#store;
    const columns = columnsOf(resource);
    const encoded = { id, ...encodeValues(resource, dialect, values) };
    const record = decodeRow(resource, dialect, this.#writer.rowAsStored(resource, columns, encoded));
    if (!this.#checks.passes(resource, grant, record)) return undefined;
    if (!this.#referableByStatement(resource, values, meta.principal)) return undefined;
    const event = buildRecordEvent(resource.name, meta, 'created', id, null, record);
    noteEvent?.(event);
    const requires = requiredRows(this.#registry, resource, values);
    const rows = await this.#runner.runOneStatement('RESOURCE_STORE_ERROR', event, (parts) =>
      requires.length === 0
        ? this.#writer.create(resource.table, encoded, parts, columns)
        : this.#writer.change({ kind: 'insert', table: resource.table, row: encoded, requires }, parts, columns),
    );
    return rows && { record: decodeRow(resource, dialect, rows[0]!), attributes: readable };
  }

  /**
   * The update at the version read; undefined when the row changed after it was read or a reference is
   * missing. `precondition` is judged on the version read: the change is made only at that version.
   */
  async update(
    resource: Resource,
    meta: RequestMeta,
    id: string,
    values: RecordValues,
    grant: AccessGrant,
    readable: string[],
    precondition?: WritePrecondition,
  ): Promise<ReadResult | undefined> {
    const { db, dialect } = this.#store;
    const read = () => this.#targets.read(db, resource, meta.principal, id, 'update', grant, true);
    const target = await guard(dialect, 'RESOURCE_UPDATE_ERROR', () =>
      readUnder(precondition, resource, id, readable, read, ({ record }) => record),
    );
    const old = target.record;
    const changed = Object.fromEntries(
      Object.entries(values).filter(([name, value]) => !isDeepStrictEqual(old[name] ?? null, value)),
    );
    if (Object.keys(changed).length === 0) return { record: old, attributes: readable };
    const encoded = encodeValues(resource, dialect, { ...changed, updated_at: new Date().toISOString() });
    // The row as the database will give it back: the version read, with the changed columns as stored.
    const record = decodeRow(resource, dialect, {
      ...target.row,
      ...this.#writer.rowAsStored(resource, Object.keys(encoded), encoded),
    });
    if (!this.#checks.passes(resource, grant, record)) return undefined;
    if (!this.#referableByStatement(resource, changed, meta.principal)) return undefined;
    const change: ConditionalChange = {
      kind: 'update',
      table: resource.table,
      id,
      version: target.version,
      values: encoded,
      requires: requiredRows(this.#registry, resource, changed),
    };
    const event = buildRecordEvent(resource.name, meta, 'updated', id, old, record);
    const rows = await this.#runner.runOneStatement('RESOURCE_UPDATE_ERROR', event, (parts) =>
      this.#writer.change(change, parts, columnsOf(resource)),
    );
    return rows && { record: decodeRow(resource, dialect, rows[0]!), attributes: readable };
  }

  /** The delete at the version read; false when the row changed after it was read. `readable`: the fields `precondition` is judged with. */
  async remove(
    resource: Resource,
    meta: RequestMeta,
    id: string,
    grant: AccessGrant,
    precondition?: WritePrecondition,
    readable: readonly string[] = [],
  ): Promise<boolean> {
    const { db, dialect } = this.#store;
    const read = () => this.#targets.read(db, resource, meta.principal, id, 'delete', grant, true);
    const target = await guard(dialect, 'RESOURCE_DELETE_ERROR', () =>
      readUnder(precondition, resource, id, readable, read, ({ record }) => record),
    );
    const old = target.record;
    let change: ConditionalChange = { kind: 'delete', table: resource.table, id, version: target.version };
    let event: RecordEvent;
    if (resource.softDelete) {
      const now = new Date().toISOString();
      change = { ...change, kind: 'update', values: { deleted_at: dialect.encode('timestamp', now) }, requires: [] };
      event = buildRecordEvent(resource.name, meta, 'deleted', id, old, { ...old, deleted_at: now });
    } else {
      event = buildRecordEvent(resource.name, meta, 'deleted', id, old, null);
    }
    const written = await this.#runner.runOneStatement('RESOURCE_DELETE_ERROR', event, (parts) =>
      this.#writer.change(change, parts, ['id']),
    );
    return written !== undefined;
  }

  /**
   * Whether the one-statement write may judge `values`' references: it requires only that the rows
   * exist, so it serves callers who may read every row of each target; others go through the
   * transaction, whose check also applies their read filter.
   */
  #referableByStatement(resource: Resource, values: RecordValues, principal: Principal): boolean {
    return referencesIn(this.#registry, resource, values).every(({ target }) => mayReferToAnyRow(target, principal));
  }
}
