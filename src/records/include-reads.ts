// The records a compound document includes (`?include=`): per relationship path one statement reading
// every related record of that step at once (`id in (…)`), under the caller's own read filter of the
// related resource, so a record the caller may not read is neither included nor counted.
import type { CompiledQuery } from 'kysely';
import { ApiError } from '../errors/api-error.ts';
import type { Resource } from '../resources/resource.ts';
import type { Principal } from '../auth/principal.ts';
import type { Store } from '../store/create-store.ts';
import type { RecordValues } from '../events/record-event.ts';
import { resolveAccess } from '../permissions/resolve-access.ts';
import type { AccessGrant } from '../permissions/access-grant.ts';
import type { VisibleRows } from '../query/visible-rows.ts';
import { columnsOf } from '../query/record-columns.ts';
import type { CompoundQuery, IncludeBounds, IncludeNode } from '../query/parse-compound-query.ts';
import { decodeRow } from './record-codec.ts';

type Row = Record<string, unknown>;

export interface IncludedRecord {
  resource: Resource;
  record: RecordValues;
  /** The attributes shown: the type's sparse fieldset, else every field the caller may read. */
  attributes: string[];
}

export class IncludeReads {
  readonly #store: Store;
  readonly #visible: VisibleRows;
  readonly #read: (query: CompiledQuery<Row>) => Promise<Row[]>;
  readonly #bounds: IncludeBounds;

  constructor(store: Store, visible: VisibleRows, read: (query: CompiledQuery<Row>) => Promise<Row[]>, bounds: IncludeBounds) {
    this.#store = store;
    this.#visible = visible;
    this.#read = read;
    this.#bounds = bounds;
  }

  /** The included records of `records` (of `resource`), each (type, id) once and none of `records` again. */
  async include(principal: Principal, resource: Resource, records: readonly RecordValues[], compound: CompoundQuery): Promise<IncludedRecord[]> {
    const included: IncludedRecord[] = [];
    if (compound.include.length === 0) return included;
    const seen = new Set(records.map((record) => `${resource.name}\u0000${String(record.id)}`));
    const pending: { node: IncludeNode; parent: Resource; records: readonly RecordValues[] }[] = compound.include.map((node) => ({ node, parent: resource, records }));
    /** Every related (type, id) asked for: what `included` could hold, bounded before it is read. */
    const wanted = new Set<string>();
    while (pending.length > 0) {
      const { node, parent, records: parents } = pending.shift()!;
      const parentGrant = grantOf(parent, principal);
      if (!parentGrant) continue;
      if (!parentGrant.fields.has(node.relation.field)) {
        throw new ApiError('INVALID_FIELDS', { parameter: 'include', detail: `Relationship '${node.path}' is not readable` });
      }
      const grant = grantOf(node.target, principal);
      // A resource the caller may not read at all: nothing of it, nor beyond it, is included.
      if (!grant) continue;
      const ids = [...new Set(parents.map((record) => record[node.relation.field]).filter((id) => id !== null && id !== undefined).map(String))];
      if (ids.length === 0) continue;
      for (const id of ids) wanted.add(`${node.target.name}\u0000${id}`);
      if (wanted.size > this.#bounds.maxRecords) {
        throw new ApiError('INVALID_QUERY_PARAMS', { parameter: 'include', detail: `The include would read more than ${this.#bounds.maxRecords} related records` });
      }
      const rows = await this.#read(this.#relatedRows(node.target, grant, ids));
      const related = rows.map((row) => decodeRow(node.target, this.#store.dialect, row));
      const attributes = compound.fieldsets.get(node.target.name) ?? [...grant.fields];
      for (const record of related) {
        const key = `${node.target.name}\u0000${String(record.id)}`;
        if (seen.has(key)) continue;
        seen.add(key);
        included.push({ resource: node.target, record, attributes });
      }
      for (const child of node.children) pending.push({ node: child, parent: node.target, records: related });
    }
    return included;
  }

  #relatedRows(target: Resource, grant: AccessGrant, ids: string[]): CompiledQuery<Row> {
    return this.#store.db
      .selectFrom(target.table)
      .select(columnsOf(target))
      .where('id', 'in', ids)
      .where(this.#visible.of(target, grant.filter))
      .compile() as CompiledQuery<Row>;
  }
}

function grantOf(resource: Resource, principal: Principal): AccessGrant | undefined {
  try {
    return resolveAccess(resource, principal, 'read');
  } catch (error) {
    if (error instanceof ApiError) return undefined;
    throw error;
  }
}
