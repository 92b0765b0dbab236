// A read's query string parsed before the record service sees it: the list query (filters, sort, page,
// fields) and the compound query (include, fields[type]), each checked against what the caller may read.
// Errors come in the order a read has always given them: access first (403), then the query (400).
import { resolveAccess } from '../../permissions/resolve-access.ts';
import { parseListQuery, type FilterParameterOptions, type RawQuery } from '../../query/parse-list-query.ts';
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
import { ApiError, type ErrorIssue } from '../../errors/api-error.ts';
import { RANK_SORT_KEY, type ListQuery } from '../../query/list-query.ts';
import type { AggregateQuery } from '../../query/aggregate-query.ts';
import { parseAggregateQuery } from '../../query/parse-aggregate-query.ts';
import type { Principal } from '../../model/principal.ts';

/** Paging parameters, which an export (every matching record, in one answer) has no use for. */
const NOT_IN_EXPORTS = new Set(['_limit', '_offset']);

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
    const compound = this.compound(resource, principal, raw);
    if (query.fields !== null && compound.fieldsets.has(resource.name)) {
      throw new ApiError('INVALID_QUERY_PARAMS', {
        parameter: `fields[${resource.name}]`,
        detail: `Use only one of fields and fields[${resource.name}]`,
      });
    }
    return { query, compound };
  }

  /**
   * An export's list query: the list's filters, `_sort` and `fields`, without `_format` (export-format.ts
   * read it). It holds every matching record, so page parameters and `include` are refused, each by name.
   */
  exportQuery(resource: Resource, principal: Principal, raw: RawQuery): ListQuery {
    const grant = resolveAccess(resource, principal, 'read');
    const rest: RawQuery = {};
    const refused: ErrorIssue[] = [];
    for (const [name, value] of Object.entries(raw)) {
      if (name === '_format') continue;
      if (NOT_IN_EXPORTS.has(name) || name.startsWith('page[') || isCompoundParameter(name))
        refused.push({
          parameter: name,
          detail: `An export holds every matching record: '${name}' does not apply to it`,
        });
      else rest[name] = value;
    }
    if (refused.length > 0) throw new ApiError('INVALID_QUERY_PARAMS', refused);
    const query = parseListQuery(rest, resource, grant.fields, this.#likeLimits, this.#filterOptions(principal));
    // An export walks keyset pages, whose cursors hold sort values; relevance is not one.
    if (query.rank)
      throw new ApiError('INVALID_QUERY_PARAMS', [
        {
          parameter: raw._sort === undefined ? 'sort' : '_sort',
          detail: `An export cannot be sorted by ${RANK_SORT_KEY}`,
        },
      ]);
    return query;
  }

  /** How `_filter` is read for this caller: their session variables, the configured bounds. */
  #filterOptions(principal: Principal): FilterParameterOptions {
    return { vars: sessionVariablesOf(principal), limits: this.#filterLimits };
  }

  /** An aggregate request's query; FORBIDDEN first when the caller may not read the resource at all. */
  aggregate(resource: Resource, principal: Principal, raw: RawQuery): AggregateQuery {
    const grant = resolveAccess(resource, principal, 'read');
    return parseAggregateQuery(raw, resource, grant.fields, this.#likeLimits, this.#filterOptions(principal));
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
