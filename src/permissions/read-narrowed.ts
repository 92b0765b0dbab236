// Whether new resource definitions take away something an open reader (a stream) was given: a field it
// is sent, rows its filter admitted, the right to read at all, or the resource itself. Decided by
// comparing what the reader was granted with what the same caller would be granted now; anything that
// cannot be shown to be at least as wide counts as narrower, so a reader is never left with more than
// a fresh request would get.
import { isDeepStrictEqual } from 'node:util';
import type { Principal } from '../model/principal.ts';
import { ApiError } from '../errors/api-error.ts';
import type { FilterNode } from '../model/filter-node.ts';
import { filterImplies } from '../query/filter-implies.ts';
import type { Resource } from '../resources/resource.ts';
import type { AccessGrant } from '../model/access-grant.ts';
import { resolveAccess } from './resolve-access.ts';

/** What a reader was given when it started, and what it is sent. */
export interface GrantedRead {
  readonly resource: Resource;
  readonly grant: AccessGrant;
  /** The declared fields the reader is sent (a subset of the grant's, as it asked). */
  readonly fields: readonly string[];
  /** It is sent `deleted_at` (soft-delete resources). */
  readonly deletedAt: boolean;
}

/** True when `principal`, reading as `granted`, may no longer read all of it under `next` (undefined: gone). */
export function readNarrowed(granted: GrantedRead, next: Resource | undefined, principal: Principal): boolean {
  if (next === granted.resource) return false;
  if (!next?.enabled) return true;
  const before = granted.resource;
  // Another table, or soft delete switched, changes which rows and events the reader is shown at all.
  if (next.table !== before.table || next.softDelete !== before.softDelete) return true;
  let grant: AccessGrant;
  try {
    grant = resolveAccess(next, principal, 'read');
  } catch (error) {
    if (error instanceof ApiError) return true;
    throw error;
  }
  for (const field of granted.fields) {
    if (!grant.fields.has(field)) return true;
    // A field whose type changed is sent differently: the reader starts again from a fresh read.
    if (!isDeepStrictEqual(before.fields.get(field)?.definition, next.fields.get(field)?.definition)) return true;
  }
  // A filter compared across definitions means the same only if the fields it tests are unchanged.
  for (const field of new Set([...fieldsTested(granted.grant.filter), ...fieldsTested(grant.filter)])) {
    if (before.storageOf(field) !== next.storageOf(field)) return true;
    if (!isDeepStrictEqual(before.fields.get(field)?.definition, next.fields.get(field)?.definition)) return true;
  }
  return !filterImplies(granted.grant.filter, grant.filter);
}

/** The fields a filter tree tests. */
export function fieldsTested(node: FilterNode, into: string[] = []): string[] {
  switch (node.kind) {
    case 'and':
    case 'or':
      for (const child of node.nodes) fieldsTested(child, into);
      break;
    case 'not':
      fieldsTested(node.node, into);
      break;
    case 'condition':
      into.push(node.field);
      break;
    case 'constant':
      break;
  }
  return into;
}
