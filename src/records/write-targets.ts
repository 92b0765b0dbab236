// The row a write targets, read with whether the caller may see it and make the action on it: 404 when
// they cannot read it, 403 when it is outside the action's filter.
import type { Action } from '../config/config-types.ts';
import { ApiError } from '../errors/api-error.ts';
import type { Principal } from '../model/principal.ts';
import type { Resource } from '../resources/resource.ts';
import type { Store } from '../store/create-store.ts';
import type { Db } from '../store/store-dialect.ts';
import { resolveAccess } from '../permissions/resolve-access.ts';
import type { AccessGrant } from '../model/access-grant.ts';
import type { FilterNode } from '../model/filter-node.ts';
import type { ByIdQueries } from '../query/by-id-queries.ts';
import { columnsOf } from '../query/record-columns.ts';
import { UUID_PATTERN } from '../resources/field-types/uuid-field.ts';
import type { RecordValues } from '../model/record-values.ts';
import { decodeRow } from './record-codec.ts';
import { notFound, type RecordReads } from './record-reads.ts';

type Row = Record<string, unknown>;

/** The row a write targets: decoded, as stored (its columns), and its version when read for a versioned change. */
export interface WriteTarget {
  record: RecordValues;
  row: Row;
  version: string;
}

export class WriteTargets {
  readonly #store: Store;
  readonly #byId: ByIdQueries;
  readonly #reads: RecordReads;

  constructor(store: Store, byId: ByIdQueries, reads: RecordReads) {
    this.#store = store;
    this.#byId = byId;
    this.#reads = reads;
  }

  /** The target's record, locked where the database can. */
  async find(
    trx: Db,
    resource: Resource,
    principal: Principal,
    id: string,
    action: Action,
    grant: AccessGrant,
  ): Promise<RecordValues> {
    return (await this.read(trx, resource, principal, id, action, grant, false)).record;
  }

  /**
   * find's read, as the record and the row as stored (its columns only); `versioned` reads it without a
   * lock, with its version, for a change made at that version (OneStatementWriter).
   */
  async read(
    trx: Db,
    resource: Resource,
    principal: Principal,
    id: string,
    action: Action,
    grant: AccessGrant,
    versioned: boolean,
  ): Promise<WriteTarget> {
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
    const byVersion = versioned ? queries.versioned : undefined;
    // Unlocked reads of a pass share one round trip with each other and with the pass's reads by id.
    const row = byVersion
      ? byVersion.many
        ? await this.#reads.readInPass(byVersion, id)
        : (await this.#reads.read(byVersion.one.bind(id)))[0]
      : (await this.#store.executeIn(trx, queries.locking.bind(id)))[0];
    if (!row || Number(row.__readable) !== 1) throw notFound(resource, id);
    if (Number(row.__allowed) !== 1)
      throw new ApiError('FORBIDDEN', `This caller may not ${action} ${resource.name}/${id}`);
    const stored: Row = {};
    for (const column of columnsOf(resource)) stored[column] = row[column];
    return { record: decodeRow(resource, dialect, row), row: stored, version: String(row.__version) };
  }
}
