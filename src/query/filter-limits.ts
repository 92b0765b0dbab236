// Bounds on a caller's `_filter` tree: each condition is a clause of the list's SQL and a test per event
// on every stream that carries it, so depth, conditions and list values are capped before anything runs.
import { SERVER_LIMIT_DEFAULTS } from '../config/config-schema.ts';
import type { SvcConfig } from '../config/config-types.ts';

export interface FilterLimits {
  /** Nesting of `_and`, `_or` and `_not`, the top level being 1. */
  maxDepth: number;
  /** Conditions (`{ field: { op: value } }` pairs), the whole tree together. */
  maxConditions: number;
  /** Values of all `in`/`nin` lists together. */
  maxInValues: number;
}

export function filterLimits(
  server: Pick<SvcConfig['server'], 'filterMaxDepth' | 'filterMaxConditions' | 'filterMaxInValues'>,
): FilterLimits {
  return {
    maxDepth: server.filterMaxDepth ?? SERVER_LIMIT_DEFAULTS.filterMaxDepth,
    maxConditions: server.filterMaxConditions ?? SERVER_LIMIT_DEFAULTS.filterMaxConditions,
    maxInValues: server.filterMaxInValues ?? SERVER_LIMIT_DEFAULTS.filterMaxInValues,
  };
}

export const DEFAULT_FILTER_LIMITS: FilterLimits = filterLimits({});
