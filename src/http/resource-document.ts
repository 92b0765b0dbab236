// Records → JSON:API resource objects and documents, with pagination links per docs/records.md.
import type { Resource } from '../resources/resource.ts';
import type { RecordValues } from '../events/record-event.ts';
import type { ListQuery } from '../query/list-query.ts';
import { keysetLinks } from './keyset-links.ts';

export interface ResourceObject {
  type: string;
  id: string;
  attributes: Record<string, unknown>;
  links: { self: string };
}

export function resourceObject(resource: Resource, record: RecordValues, attributes: readonly string[]): ResourceObject {
  const shown: Record<string, unknown> = {};
  for (const name of attributes) shown[name] = Object.hasOwn(record, name) ? (record[name] ?? null) : null;
  shown.created_at = record.created_at;
  shown.updated_at = record.updated_at;
  const id = String(record.id);
  return { type: resource.name, id, attributes: shown, links: { self: `/v1/${resource.name}/${id}` } };
}

export function recordDocument(resource: Resource, record: RecordValues, attributes: readonly string[]) {
  const data = resourceObject(resource, record, attributes);
  return { data, links: { self: data.links.self } };
}

function pageLink(resource: Resource, query: ListQuery, offset: number): string {
  const parts = query.carried.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
  parts.push(`page[offset]=${offset}`, `page[limit]=${query.limit}`);
  return `/v1/${resource.name}?${parts.join('&')}`;
}

export function listDocument(resource: Resource, records: RecordValues[], attributes: readonly string[], total: number, query: ListQuery, more = false) {
  const links = query.keyset ? keysetLinks(resource, query, query.keyset, records, more) : offsetLinks(resource, query, total);
  return {
    data: records.map((record) => resourceObject(resource, record, attributes)),
    meta: { total },
    links,
  };
}

function offsetLinks(resource: Resource, query: ListQuery, total: number): Record<string, string> {
  const { offset, limit } = query;
  const links: Record<string, string> = {
    self: pageLink(resource, query, offset),
    first: pageLink(resource, query, 0),
  };
  if (offset > 0) links.prev = pageLink(resource, query, Math.max(offset - limit, 0));
  if (offset + limit < total) links.next = pageLink(resource, query, offset + limit);
  if (total > 0) links.last = pageLink(resource, query, Math.floor((total - 1) / limit) * limit);
  return links;
}
