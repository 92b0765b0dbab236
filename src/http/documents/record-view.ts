// A record as one caller is shown it: the text of its document and that text's tag. GET answers with
// both; a write given If-Match computes the view of its target the same way, inside the write, so the
// tag a GET gave and the tag the write compares it with are one function of one view.
import type { FastifyRequest } from 'fastify';
import type { Resource } from '../../resources/resource.ts';
import type { RecordValues } from '../../model/record-values.ts';
import type { WritePrecondition } from '../../records/precondition.ts';
import type { Inclusion } from '../../records/include-reads.ts';
import { recordDocument } from './resource-document.ts';
import { entityTagOf, matchesStrongly, parseEntityTags } from './entity-tag.ts';
import type { Principal } from '../../model/principal.ts';
import { rowRights } from '../../permissions/row-rights.ts';
import { principalOf } from '../guards/authenticate-hook.ts';

export interface TaggedBody {
  body: string;
  tag: string;
}

/**
 * `included`: what `?include=` added (a GET's own view; a write compares the view without it). The
 * record has every column (reads by id and writes select them all), so the caller's meta.can is
 * worked out from it here, the same for a GET's tag and for the If-Match a write compares.
 */
export function recordView(
  resource: Resource,
  record: RecordValues,
  attributes: readonly string[],
  principal: Principal,
  included?: Inclusion,
): TaggedBody {
  const body = JSON.stringify(
    recordDocument(resource, record, attributes, included, rightsOn(resource, principal, record)),
  );
  return { body, tag: entityTagOf(body) };
}

/** meta.can for one record with every column, or undefined when no row filter decides it. */
export function rightsOn(resource: Resource, principal: Principal, record: RecordValues) {
  return rowRights(resource, principal)?.of(record);
}

/** The request's If-Match as a write's precondition on `resource`'s record; undefined without one. */
export function ifMatchOf(request: FastifyRequest, resource: Resource): WritePrecondition | undefined {
  const header = request.headers['if-match'];
  if (header === undefined) return undefined;
  const condition = parseEntityTags(header);
  const principal = principalOf(request);
  return {
    holds: (record, attributes) =>
      record !== undefined &&
      (condition === '*' || matchesStrongly(condition, recordView(resource, record, attributes, principal).tag)),
  };
}
