// A list request after parsing: what to filter, sort, page and return.
import type { FilterNode } from './filter-node.ts';

export interface SortKey {
  field: string;
  descending: boolean;
}

export interface ListQuery {
  filter: FilterNode;
  sort: SortKey[];
  limit: number;
  offset: number;
  /** Requested attribute names (declared fields only), or null for every readable field. */
  fields: string[] | null;
  /** The filter, `_sort` and `fields` parameters as given, kept for pagination links. */
  carried: [string, string][];
}

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 1000;
export const MAX_FILTERS = 64;
export const MAX_IN_VALUES = 1000;
/** Values of all `in`/`nin` lists of one request together: SQLite binds at most 32,766 parameters per statement. */
export const MAX_QUERY_VALUES = 10_000;
