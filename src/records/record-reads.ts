// Lists and reads by id of a resource's records for a caller, with the caller's access rules applied in
// SQL: planned in query/, run on the store, with list pages and counts reused while nothing changed them.
import type { CompiledQuery } from 'kysely';
import { ApiError } from '../errors/api-error.ts';
import type { Resource } from '../resources/resource.ts';
import type { Store } from '../store/create-store.ts';
import { PointReadBatcher } from '../store/point-read-batcher.ts';
import { resolveAccess } from '../permissions/resolve-access.ts';
import type { ListQuery } from '../query/list-query.ts';
import type { ListPlan, ListPlans } from '../query/list-plan.ts';
import type { ByIdQueries, FindQueries } from '../query/by-id-queries.ts';
import { UUID_PATTERN } from '../resources/field-types/uuid-field.ts';
import type { RecordValues } from '../model/record-values.ts';
import { decodeRow } from './record-codec.ts';
import { MarkedReadCache } from './marked-read-cache.ts';
import { pageWeight } from './page-weight.ts';
import { guard } from './driver-error-guard.ts';
import { exportBatches, type ExportedRecords } from './record-export.ts';
import { AggregatePlans } from '../query/aggregate-plan.ts';
import type { AggregateQuery } from '../query/aggregate-query.ts';
import { aggregateGroups, type AggregateGroup } from './aggregate-groups.ts';
import type { ListResult, ReadResult, RequestMeta } from './record-results.ts';
import { allOf, type FilterNode } from '../model/filter-node.ts';
import { NO_COMPOUND, type CompoundQuery, type IncludeBounds } from '../query/parse-compound-query.ts';
import type { VisibleRows } from '../query/visible-rows.ts';
import { IncludeReads } from './include-reads.ts';
import type { Principal } from '../model/principal.ts';
import { rowRights, type RowRights } from '../permissions/row-rights.ts';
import type { KeysetPage } from '../query/list-query.ts';

// A keyset page's rows as read (one more than the page, in the order read) → the page in the list's
// order, and whether more rows lie beyond it on the side it was read towards.
interface KeysetRecords {
  records: RecordValues[];
  /** A row beyond the page was read: the list goes on past it (after it, or before it for page[before]). */
  more: boolean;
}

/** A new array each time: `read` may be a cached page shared with other requests. */
function keysetRecords(read: readonly RecordValues[], limit: number, page: KeysetPage): KeysetRecords {
  const records = read.slice(0, limit);
  if (page.side === 'before') records.reverse();
  return { records, more: read.length > limit };
}

/** A list read as http/ parsed it: the list query and the compound query (include, fields[type]). */
export interface ListRead {
  readonly query: ListQuery;
  readonly compound: CompoundQuery;
}

/** A list narrowed to the records whose `field` refers to one record: the to-many side of a relation. */
export interface ListScope {
  field: string;
  id: string;
  /** Where the list is read, for its page links (it may carry a query of its own). */
  path: string;
}

type Row = Record<string, unknown>;

interface PageRead {
  records: RecordValues[];
  total: number;
}

export class RecordReads {
  readonly #store: Store;
  readonly #lists: ListPlans;
  readonly #byId: ByIdQueries;
  readonly #pointReads = new PointReadBatcher<FindQueries>((queries, ids) =>
    this.read(ids.length === 1 || !queries.many ? queries.one.bind(ids[0]) : queries.many.bind(ids)),
  );
  /** meta.total is the expensive part of a list: reused while the database has not changed. */
  readonly #counts = new MarkedReadCache<number>({ maxEntries: 1000 });
  /**
   * Whole pages (rows and total), reused the same way. On PostgreSQL reading the mark is a round trip
   * of its own, but a full page read it anyway for its count, and a reused page skips decoding rows,
   * building the document and serializing it (most of a list's time and all of its garbage). Bounded
   * by their size (about 16 MB of text; their JSON text, kept beside them, is about as much again).
   */
  readonly #pages = new MarkedReadCache<PageRead>({
    maxEntries: 256,
    weigh: (page) => pageWeight(page.records),
    maxWeight: 8_000_000,
  });

  readonly #includes: IncludeReads;
  readonly #aggregates: AggregatePlans;

  constructor(store: Store, lists: ListPlans, byId: ByIdQueries, visible: VisibleRows, includeBounds: IncludeBounds) {
    this.#store = store;
    this.#aggregates = new AggregatePlans(store.db, store.dialect, visible);
    this.#lists = lists;
    this.#byId = byId;
    this.#includes = new IncludeReads(store, visible, (query) => this.read(query), includeBounds);
  }

  /** Rows of a read outside any transaction: at once where the store can, else through Kysely. */
  async read<R>(query: CompiledQuery<R>): Promise<R[]> {
    return (this.#store.readNow(query) as R[] | undefined) ?? (await this.#store.db.executeQuery(query)).rows;
  }

  /** A row by id among what `queries` select, read with the other reads by id of this pass (point-read-batcher.ts). */
  readInPass(queries: FindQueries, id: string): Promise<Row | undefined> {
    return this.#pointReads.read(queries, id);
  }

  async list(resource: Resource, meta: RequestMeta, read: ListRead, scope?: ListScope): Promise<ListResult> {
    const grant = resolveAccess(resource, meta.principal, 'read');
    const { query: parsed, compound } = read;
    const attributes = sparseFields(resource, parsed.fields, compound) ?? [...grant.fields];
    const query = scope ? { ...parsed, filter: allOf([scopeCondition(scope), parsed.filter]) } : parsed;
    const rights = rowRights(resource, meta.principal);
    const page = await guard(this.#store.dialect, 'RESOURCE_FETCH_ERROR', async () => {
      const { db, dialect } = this.#store;
      const columns = withRightsFields(withIncludedFields(attributes, compound), rights);
      const plan = this.#lists.planOf(resource, grant.filter, query, columns);
      const readPage = (mark?: string) => this.#readPage(resource, query, plan, mark);
      const read = await this.#pages.get(db, dialect, plan.pageKey, readPage);
      return query.keyset
        ? { ...keysetRecords(read.records, query.limit, query.keyset), total: read.total }
        : { records: read.records, total: read.total, more: undefined };
    });
    const { records, total, more } = page;
    const can = rights ? { can: records.map((record) => rights.of(record)) } : {};
    if (compound === NO_COMPOUND && !scope)
      return more === undefined
        ? { records, total, query, attributes, ...can }
        : { records, total, query, attributes, more, ...can };
    const included = await this.#included(meta.principal, resource, records, compound);
    return {
      records,
      total,
      query,
      attributes,
      included,
      path: scope?.path,
      ...(more === undefined ? {} : { more }),
      ...can,
    };
  }

  /**
   * Every record of `query` the caller may read, in keyset batches (record-export.ts). The page cache is
   * left alone: an export's pages serve only it, and keeping them would push the popular lists out.
   */
  async export(resource: Resource, meta: RequestMeta, query: ListQuery): Promise<ExportedRecords> {
    const grant = resolveAccess(resource, meta.principal, 'read');
    const attributes = query.fields ?? [...grant.fields];
    const readPage = (page: ListQuery) =>
      guard(this.#store.dialect, 'RESOURCE_FETCH_ERROR', async () => {
        const plan = this.#lists.planOf(resource, grant.filter, page, attributes);
        const rows = await this.read(plan.page);
        return rows.map((row) => decodeRow(resource, this.#store.dialect, row));
      });
    return exportBatches(resource, query, attributes, readPage);
  }

  /** The groups of `query` over the rows the caller may read (docs/records.md, "Aggregates"). */
  async aggregate(resource: Resource, meta: RequestMeta, query: AggregateQuery): Promise<AggregateGroup[]> {
    const grant = resolveAccess(resource, meta.principal, 'read');
    return guard(this.#store.dialect, 'RESOURCE_FETCH_ERROR', async () => {
      const plan = this.#aggregates.planOf(resource, grant.filter, query);
      return aggregateGroups(resource, this.#store.dialect, plan, await this.read(plan.statement));
    });
  }

  #included(principal: Principal, resource: Resource, records: readonly RecordValues[], compound: CompoundQuery) {
    if (compound.include.length === 0) return Promise.resolve(undefined);
    return guard(this.#store.dialect, 'RESOURCE_FETCH_ERROR', () =>
      this.#includes.include(principal, resource, records, compound),
    );
  }

  /** Cached pages are shared between requests: nothing downstream may change their records. */
  async #readPage(resource: Resource, query: ListQuery, plan: ListPlan, mark: string | undefined): Promise<PageRead> {
    const { db, dialect } = this.#store;
    const rows = await this.read(plan.page);
    let total: number;
    // A keyset page past a cursor knows nothing of the rows before it: those are counted.
    if (!query.keyset?.values && rows.length < query.limit && (rows.length > 0 || query.offset === 0)) {
      // A page that is not full (and not past the end) holds the last matching row: it gives the total.
      total = query.offset + rows.length;
    } else {
      // Under the page's own mark (read before the page): no second mark read, and a change that
      // lands meanwhile only makes both older.
      total = await this.#counts.get(
        db,
        dialect,
        plan.countKey,
        async () => {
          if (plan.countPlan) return plan.countPlan.take((query) => this.read(query));
          const counted = await this.read(plan.count);
          return Number(counted[0]?.total ?? 0);
        },
        mark,
      );
    }
    return { records: rows.map((row) => decodeRow(resource, dialect, row)), total };
  }

  async get(
    resource: Resource,
    meta: RequestMeta,
    id: string,
    compound: CompoundQuery = NO_COMPOUND,
  ): Promise<ReadResult> {
    const grant = resolveAccess(resource, meta.principal, 'read');
    const row = await guard(this.#store.dialect, 'RESOURCE_FIND_ERROR', async () => {
      if (!UUID_PATTERN.test(id)) return undefined;
      const queries = this.#byId.find(resource, grant.filter);
      return queries.many ? this.#pointReads.read(queries, id) : (await this.read(queries.one.bind(id)))[0];
    });
    if (!row) throw notFound(resource, id);
    const record = decodeRow(resource, this.#store.dialect, row);
    const attributes = sparseFields(resource, null, compound) ?? [...grant.fields];
    const included = await this.#included(meta.principal, resource, [record], compound);
    return included ? { record, attributes, included } : { record, attributes };
  }
}

/** The attributes a read shows: its type's sparse fieldset, else `fields` (http/ refuses both at once). */
function sparseFields(resource: Resource, fields: string[] | null, compound: CompoundQuery): string[] | null {
  return compound.fieldsets.get(resource.name) ?? fields;
}

/**
 * The columns a page selects: the attributes shown, and the relation fields a to-one include follows
 * even when a sparse fieldset leaves them out of the document (JSON:API allows that exception to full linkage).
 */
function withIncludedFields(attributes: string[], compound: CompoundQuery): string[] {
  const followed = compound.include.flatMap((node) =>
    node.kind === 'to-one' && !attributes.includes(node.relation.field) ? [node.relation.field] : [],
  );
  return followed.length === 0 ? attributes : [...attributes, ...new Set(followed)];
}

/** The columns a page selects, with those the caller's row rights read (row-rights.ts), shown or not. */
function withRightsFields(columns: string[], rights: RowRights | undefined): string[] {
  if (!rights) return columns;
  const missing = rights.fields.filter((field) => !columns.includes(field));
  return missing.length === 0 ? columns : [...columns, ...missing];
}

function scopeCondition(scope: ListScope): FilterNode {
  return { kind: 'condition', field: scope.field, op: 'eq', value: scope.id };
}

export function notFound(resource: Resource, id: string): ApiError {
  return new ApiError('RESOURCE_NOT_FOUND', `No ${resource.name} record with id '${id}'`);
}
