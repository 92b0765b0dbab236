// What a record operation is given about its request and what it answers.
import type { EventOrigin } from '../events/build-record-event.ts';
import type { RecordValues } from '../events/record-event.ts';
import type { ListQuery } from '../query/list-query.ts';

/** The caller, and the request's ids that its events carry. */
export type RequestMeta = EventOrigin;

export interface ListResult {
  records: RecordValues[];
  total: number;
  query: ListQuery;
  /** Attribute names to show: the requested or readable fields. */
  attributes: string[];
  /** A keyset page only: whether the list goes on beyond it, on the side it was read towards. */
  more?: boolean;
}

export interface ReadResult {
  record: RecordValues;
  attributes: string[];
}
