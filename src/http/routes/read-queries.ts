// A read's query string parsed before the record service sees it: the list query (filters, sort, page,
// fields) and the compound query (include, fields[type]), each checked against what the caller may read.
// Errors come in the order a read has always given them: access first (403), then the query (400).
import { resolveAccess } from '../../permissions/resolve-access.ts';
import { parseListQuery, type RawQuery } from '../../query/parse-list-query.ts';
import type { LikePatternLimits } from '../../query/like-pattern-limits.ts';
import { DEFAULT_FILTER_LIMITS, type FilterLimits } from '../../query/filter-limits.ts';
import { sessionVariablesOf } from '../../model/session-variables.ts';
import {
  isCompoundParameter,
  NO_COMPOUND,
  parseCompoundQuery,
  type CompoundQuery,
  type IncludeBounds,
} from '../../query/parse-compound-query.ts';
import type { ListRead } from '../../records/record-service.ts';
import type { Resource } from '../../resources/resource.ts';
import type { ResourceRegistry } from '../../resources/resource-registry.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { Principal } from '../../model/principal.ts';

export class ReadQueries {
  readonly #registry: ResourceRegistry;
  readonly #likeLimits: LikePatternLimits;
  readonly #includeBounds: IncludeBounds;
  readonly #filterLimits: FilterLimits;

  constructor(
    registry: ResourceRegistry,
    likeLimits: LikePatternLimits,
    includeBounds: IncludeBounds,
    filterLimits: FilterLimits = DEFAULT_FILTER_LIMITS,
  ) {
    this.#registry = registry;
    this.#likeLimits = likeLimits;
    this.#includeBounds = includeBounds;
    this.#filterLimits = filterLimits;
  }

  /** A list's query; throws FORBIDDEN when the caller may not read the resource at all. */
  list(resource: Resource, principal: Principal, raw: RawQuery): ListRead {
    const grant = resolveAccess(resource, principal, 'read');
    const query = parseListQuery(raw, resource, grant.fields, this.#likeLimits, {
      vars: sessionVariablesOf(principal),
      limits: this.#filterLimits,
    });
    return { query, compound: this.compound(resource, principal, raw) };
  }

  /** A read by id's `include` and `fields[type]`; access is checked first, as for a list. */
  one(resource: Resource, principal: Principal, raw: RawQuery): CompoundQuery {
    resolveAccess(resource, principal, 'read');
    return this.compound(resource, principal, raw);
  }

  /** The `include` and `fields[type]` parameters, when the request has any. */
  compound(resource: Resource, principal: Principal, raw: RawQuery): CompoundQuery {
    if (!Object.keys(raw).some(isCompoundParameter)) return NO_COMPOUND;
    const readableOf = (target: Resource) => {
      try {
        return resolveAccess(target, principal, 'read').fields;
      } catch (error) {
        if (error instanceof ApiError) return null;
        throw error;
      }
    };
    const findEnabled = (name: string) => {
      const found = this.#registry.find(name);
      return found?.enabled ? found : undefined;
    };
    return parseCompoundQuery(raw, resource, findEnabled, readableOf, this.#includeBounds);
  }
}
