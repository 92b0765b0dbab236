// Records → JSON:API resource objects and documents, with pagination links per docs/records.md.
import type { Resource } from '../../resources/resource.ts';
import type { RecordValues } from '../../model/record-values.ts';
import type { ListQuery } from '../../query/list-query.ts';
import { keysetLinks } from './keyset-links.ts';
import { listLink } from './list-link.ts';
import { toOneRelations } from '../../resources/relations.ts';
import type { Inclusion, ToManyLinkage } from '../../records/include-reads.ts';
import type { RecordRights } from '../../permissions/row-rights.ts';
import type { AggregateGroup } from '../../records/record-service.ts';

export interface ResourceObject {
  type: string;
  id: string;
  attributes: Record<string, unknown>;
  relationships?: Record<string, RelationshipObject>;
  links: { self: string };
  /** `can`: what the caller may do to this record, where a row filter decides it (permissions/row-rights.ts). */
  meta?: { can: RecordRights };
}

/** A to-one relationship: its linkage, and where the related record is read. */
export interface RelationshipObject {
  data: { type: string; id: string } | { type: string; id: string }[] | null;
  links?: { related: string };
}

/** `toMany`: the linkage of the to-many relationships an include read (include-reads.ts); `can`: meta.can. */
export function resourceObject(
  resource: Resource,
  record: RecordValues,
  attributes: readonly string[],
  toMany?: ToManyLinkage,
  can?: RecordRights,
): ResourceObject {
  const shown: Record<string, unknown> = {};
  for (const name of attributes) shown[name] = Object.hasOwn(record, name) ? (record[name] ?? null) : null;
  shown.created_at = record.created_at;
  shown.updated_at = record.updated_at;
  const id = String(record.id);
  let relationships = relationshipsOf(resource, record, attributes);
  const included = toMany?.get(`${resource.name}\u0000${id}`);
  if (included) {
    relationships ??= {};
    for (const [name, data] of included)
      relationships[name] = { data, links: { related: `/v1/${resource.name}/${id}/${name}` } };
  }
  const links = { self: `/v1/${resource.name}/${id}` };
  const object: ResourceObject = relationships
    ? { type: resource.name, id, attributes: shown, relationships, links }
    : { type: resource.name, id, attributes: shown, links };
  if (can) object.meta = { can };
  return object;
}

/** The to-one relationships among the shown fields: a relation field the caller may not read is not one. */
function relationshipsOf(
  resource: Resource,
  record: RecordValues,
  attributes: readonly string[],
): Record<string, RelationshipObject> | undefined {
  let relationships: Record<string, RelationshipObject> | undefined;
  for (const relation of toOneRelations(resource)) {
    if (!attributes.includes(relation.field)) continue;
    const value = record[relation.field];
    relationships ??= {};
    relationships[relation.name] =
      value === null || value === undefined
        ? { data: null }
        : {
            data: { type: relation.target, id: String(value) },
            links: { related: `/v1/${relation.target}/${String(value)}` },
          };
  }
  return relationships;
}

/** The `included` member of a compound document, when the request asked for one. */
function includedObjects(inclusion: Inclusion | undefined): { included?: ResourceObject[] } {
  if (!inclusion) return {};
  return {
    included: inclusion.included.map(({ resource, record, attributes }) =>
      resourceObject(resource, record, attributes, inclusion.toMany),
    ),
  };
}

export function recordDocument(
  resource: Resource,
  record: RecordValues,
  attributes: readonly string[],
  included?: Inclusion,
  can?: RecordRights,
) {
  const data = resourceObject(resource, record, attributes, included?.toMany, can);
  return { data, links: { self: data.links.self }, ...includedObjects(included) };
}

/** A page's link in the spelling the request used: page numbers for `page[number]`, else offsets. */
function pageLink(base: string, query: ListQuery, offset: number): string {
  if (query.pageStyle === 'number')
    return listLink(base, query, [`page[number]=${Math.floor(offset / query.limit) + 1}`, `page[size]=${query.limit}`]);
  return listLink(base, query, [`page[offset]=${offset}`, `page[limit]=${query.limit}`]);
}

/** `path`: where the list is read, when not at /v1/<resource> (a relation's to-many side). `more`: a keyset page knows a record follows it. */
export function listDocument(
  resource: Resource,
  records: RecordValues[],
  attributes: readonly string[],
  total: number,
  query: ListQuery,
  options: { path?: string; included?: Inclusion; more?: boolean; can?: readonly RecordRights[] } = {},
) {
  const base = options.path ?? `/v1/${resource.name}`;
  const links = query.keyset
    ? keysetLinks(base, query, query.keyset, records, options.more === true)
    : offsetLinks(base, query, total);
  return {
    data: records.map((record, index) =>
      resourceObject(resource, record, attributes, options.included?.toMany, options.can?.[index]),
    ),
    ...includedObjects(options.included),
    meta: { total },
    links,
  };
}

function offsetLinks(base: string, query: ListQuery, total: number): Record<string, string> {
  const { offset, limit } = query;
  const links: Record<string, string> = {
    self: pageLink(base, query, offset),
    first: pageLink(base, query, 0),
  };
  if (offset > 0) links.prev = pageLink(base, query, Math.max(offset - limit, 0));
  if (offset + limit < total) links.next = pageLink(base, query, offset + limit);
  if (total > 0) links.last = pageLink(base, query, Math.floor((total - 1) / limit) * limit);
  return links;
}

// An aggregate answer as a JSON:API document (docs/records.md, "Aggregates"): one resource object per
// group, type `<resource>-aggregates`, its id the group's values as JSON text, its attributes the group
// fields' values, `count`, and `sum`/`avg`/`min`/`max` each keyed by field.
export function aggregateDocument(resource: Resource, groups: readonly AggregateGroup[], self: string) {
  const data = groups.map((group) => {
    const attributes: Record<string, unknown> = {};
    for (const [field, value] of group.values) attributes[field] = value;
    if (group.count !== undefined) attributes.count = group.count;
    for (const [fn, values] of group.aggregates) attributes[fn] = Object.fromEntries(values);
    return {
      type: `${resource.name}-aggregates`,
      id: JSON.stringify(group.values.map(([, value]) => value)),
      attributes,
    };
  });
  return { data, meta: { groups: data.length }, links: { self } };
}
