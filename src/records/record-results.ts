// What a record operation is given about its request and what it answers.
import type { EventOrigin } from '../events/build-record-event.ts';
import type { RecordValues } from '../model/record-values.ts';
import type { ListQuery } from '../query/list-query.ts';
import type { Inclusion } from './include-reads.ts';
import type { RecordRights } from '../permissions/row-rights.ts';

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
  /** The records `?include=` asked for, and the to-many linkage, when it asked. */
  included?: Inclusion;
  /** Where the list was read, when not at /v1/<resource> (the to-many side of a relation). */
  path?: string;
  /** Per record (same order), what the caller may do to it, when a row filter decides it (row-rights.ts). */
  can?: RecordRights[];
}

export interface ReadResult {
  record: RecordValues;
  attributes: string[];
  included?: Inclusion;
}
