// An aggregate request after parsing (docs/records.md, "Aggregates"): which fields to group by, which
// aggregates to compute, over which rows, in which order, and how many groups.
import type { FilterNode } from '../model/filter-node.ts';
import type { ListSearch } from './list-query.ts';

import type { AggregateFunction } from '../resources/aggregate-functions.ts';

export { AGGREGATE_FUNCTIONS, type AggregateFunction } from '../resources/aggregate-functions.ts';

export interface AggregateQuery {
  filter: FilterNode;
  /** `_search`: only records with these words are aggregated. */
  search?: ListSearch;
  group: string[];
  count: boolean;
  /** Fields per function, in the order given. */
  aggregates: ReadonlyMap<AggregateFunction, string[]>;
  /** Keys of `_sort`: a group field, `count`, or `<function>.<field>` among those asked for. */
  sort: AggregateSortKey[];
  limit: number;
}

export interface AggregateSortKey {
  key: string;
  descending: boolean;
}

export const MAX_GROUP_FIELDS = 8;
export const MAX_AGGREGATES = 32;
export const DEFAULT_AGGREGATE_LIMIT = 100;
export const MAX_AGGREGATE_LIMIT = 1000;
