// The records a compound document includes (`?include=`): per relationship path one statement reading
// every related record of that step at once (`id in (…)`), under the caller's own read filter of the
// related resource, so a record the caller may not read is neither included nor counted.
import type { CompiledQuery } from 'kysely';
import { ApiError } from '../errors/api-error.ts';
import type { Resource } from '../resources/resource.ts';
import type { Principal } from '../model/principal.ts';
import type { Store } from '../store/create-store.ts';
import type { RecordValues } from '../model/record-values.ts';
import { resolveAccess } from '../permissions/resolve-access.ts';
import type { AccessGrant } from '../model/access-grant.ts';
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

  constructor(
    store: Store,
    visible: VisibleRows,
    read: (query: CompiledQuery<Row>) => Promise<Row[]>,
    bounds: IncludeBounds,
  ) {
    this.#store = store;
    this.#visible = visible;
    this.#read = read;
    this.#bounds = bounds;
  }

  /**
   * The included records of `records` (of `resource`), each (type, id) once and none of `records`
   * again, and the linkage of the to-many steps: per parent (`type\u0000id`), relationship name → the
   * related records read (only readable ones: an unreadable one is neither included nor linked).
   */
  async include(
    principal: Principal,
    resource: Resource,
    records: readonly RecordValues[],
    compound: CompoundQuery,
  ): Promise<Inclusion> {
    const included: IncludedRecord[] = [];
    const toMany: ToManyLinkage = new Map();
    const seen = new Set(records.map((record) => keyOf(resource.name, record.id)));
    /** Every related (type, id) asked for: what `included` could hold, bounded before it is read. */
    const wanted = new Set<string>();
    const pending: { node: IncludeNode; parent: Resource; records: readonly RecordValues[] }[] = compound.include.map(
      (node) => ({ node, parent: resource, records }),
    );
    while (pending.length > 0) {
      const { node, parent, records: parents } = pending.shift()!;
      const grant = grantOf(node.target, principal);
      // A resource the caller may not read at all: nothing of it, nor beyond it, is included.
      if (!grant) continue;
      // The field that links the two sides must be readable where it lives, or linking would reveal it.
      const [holder, holderGrant] =
        node.kind === 'to-one' ? [parent, grantOf(parent, principal)] : [node.target, grant];
      if (!holderGrant) continue;
      if (!holderGrant.fields.has(node.relation.field)) {
        throw new ApiError('INVALID_FIELDS', {
          parameter: 'include',
          detail: `Field '${node.relation.field}' of ${holder.name} in '${node.path}' is not readable`,
        });
      }
      const ids = node.kind === 'to-one' ? idsIn(parents, node.relation.field) : idsIn(parents, 'id');
      if (ids.length === 0) continue;
      const related = await this.#related(node, grant, ids, wanted);
      const attributes = compound.fieldsets.get(node.target.name) ?? [...grant.fields];
      for (const record of related) {
        const key = keyOf(node.target.name, record.id);
        if (!seen.has(key)) {
          seen.add(key);
          included.push({ resource: node.target, record, attributes });
        }
        if (node.kind === 'to-many')
          linkTo(
            toMany,
            keyOf(parent.name, record[node.relation.field]),
            node.relation.name,
            node.target.name,
            String(record.id),
          );
      }
      if (node.kind === 'to-many') {
        // Every parent gets its linkage, empty when it has no readable related record.
        for (const id of ids) linkTo(toMany, keyOf(parent.name, id), node.relation.name);
      }
      for (const child of node.children) pending.push({ node: child, parent: node.target, records: related });
    }
    return { included, toMany };
  }

  async #related(node: IncludeNode, grant: AccessGrant, ids: string[], wanted: Set<string>): Promise<RecordValues[]> {
    const bound = this.#bounds.maxRecords;
    const tooMany = () =>
      new ApiError('INVALID_QUERY_PARAMS', {
        parameter: 'include',
        detail: `The include would read more than ${bound} related records`,
      });
    if (node.kind === 'to-one') {
      for (const id of ids) wanted.add(keyOf(node.target.name, id));
      if (wanted.size > bound) throw tooMany();
    }
    const visible = this.#visible.of(node.target, grant.filter);
    const select = this.#store.db.selectFrom(node.target.table).select(columnsOf(node.target)).where(visible);
    const query =
      node.kind === 'to-one'
        ? select.where('id', 'in', ids)
        : // One past the bound is enough to know it is passed.
          select
            .where(node.relation.field, 'in', ids)
            .orderBy('id')
            .limit(bound + 1);
    const rows = await this.#read(query.compile() as CompiledQuery<Row>);
    const related = rows.map((row) => decodeRow(node.target, this.#store.dialect, row));
    if (node.kind === 'to-many') {
      for (const record of related) wanted.add(keyOf(node.target.name, record.id));
      if (wanted.size > bound) throw tooMany();
    }
    return related;
  }
}

/** Per parent record (`type\u0000id`), to-many relationship name → identifiers of the related records. */
export type ToManyLinkage = Map<string, Map<string, { type: string; id: string }[]>>;

export interface Inclusion {
  included: IncludedRecord[];
  toMany: ToManyLinkage;
}

function keyOf(type: string, id: unknown): string {
  return `${type}\u0000${String(id)}`;
}

function idsIn(records: readonly RecordValues[], field: string): string[] {
  return [
    ...new Set(
      records
        .map((record) => record[field])
        .filter((id) => id !== null && id !== undefined)
        .map(String),
    ),
  ];
}

function linkTo(linkage: ToManyLinkage, parent: string, name: string, type?: string, id?: string): void {
  let relationships = linkage.get(parent);
  if (!relationships) linkage.set(parent, (relationships = new Map()));
  let identifiers = relationships.get(name);
  if (!identifiers) relationships.set(name, (identifiers = []));
  if (type !== undefined && id !== undefined) identifiers.push({ type, id });
}

function grantOf(resource: Resource, principal: Principal): AccessGrant | undefined {
  try {
    return resolveAccess(resource, principal, 'read');
  } catch (error) {
    if (error instanceof ApiError) return undefined;
    throw error;
  }
}
