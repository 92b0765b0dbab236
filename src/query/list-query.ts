// A list request after parsing: what to filter, sort, page and return.
import type { FilterNode } from '../model/filter-node.ts';
import type { SearchTerm } from '../store/search-index.ts';

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
  /** The filter, sort (`_sort` or `sort`) and `fields` parameters as given, kept for pagination links. */
  carried: [string, string][];
  /** 'number': the caller paged with `page[number]`/`page[size]`, and links do the same. */
  pageStyle?: 'number';
  /** A keyset page (`page[after]` / `page[before]`) instead of an offset one. */
  keyset?: KeysetPage;
  /** `_search`: records with these words, in these fields (the searchable ones the caller may read). */
  search?: ListSearch;
  /** `_sort=_rank` or `-_rank`, always the first sort key: by relevance to `search`, then by `sort`. */
  rank?: { descending: boolean };
}

/** A full-text search of a list (docs/search.md). */
export interface ListSearch {
  terms: SearchTerm[];
  /** The searchable fields the caller may read, in definition order; never empty. */
  fields: string[];
}

/** The sort key of relevance: not a field, so `_` first, as svc's own names are. */
export const RANK_SORT_KEY = '_rank';

/** Where a keyset page starts (docs/records.md, "Keyset pages"). */
export interface KeysetPage {
  /** The page holds the records right after the cursor, or right before it. */
  side: 'after' | 'before';
  /** The cursor's values: each sort key's, then the id; null for an empty cursor (the first or last page). */
  values: unknown[] | null;
  /** The cursor as given, for links.self. */
  text: string;
}

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 1000;
export const MAX_FILTERS = 64;
export const MAX_IN_VALUES = 1000;
/** Values of all `in`/`nin` lists of one request together: SQLite binds at most 32,766 parameters per statement. */
export const MAX_QUERY_VALUES = 10_000;
