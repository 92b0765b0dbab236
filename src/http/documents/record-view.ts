// A record as one caller is shown it: the text of its document and that text's tag. GET answers with
// both; a write given If-Match computes the view of its target the same way, inside the write, so the
// tag a GET gave and the tag the write compares it with are one function of one view.
import type { FastifyRequest } from 'fastify';
import type { Resource } from '../../resources/resource.ts';
import type { RecordValues } from '../../events/record-event.ts';
import type { WritePrecondition } from '../../records/precondition.ts';
import type { Inclusion } from '../../records/include-reads.ts';
import { recordDocument } from './resource-document.ts';
import { entityTagOf, matchesStrongly, parseEntityTags } from './entity-tag.ts';

export interface TaggedBody {
  body: string;
  tag: string;
}

/** `included`: what `?include=` added (a GET's own view; a write compares the view without it). */
export function recordView(resource: Resource, record: RecordValues, attributes: readonly string[], included?: Inclusion): TaggedBody {
  const body = JSON.stringify(recordDocument(resource, record, attributes, included));
  return { body, tag: entityTagOf(body) };
}

/** The request's If-Match as a write's precondition on `resource`'s record; undefined without one. */
export function ifMatchOf(request: FastifyRequest, resource: Resource): WritePrecondition | undefined {
  const header = request.headers['if-match'];
  if (header === undefined) return undefined;
  const condition = parseEntityTags(header);
  return {
    holds: (record, attributes) => record !== undefined && (condition === '*' || matchesStrongly(condition, recordView(resource, record, attributes).tag)),
  };
}
