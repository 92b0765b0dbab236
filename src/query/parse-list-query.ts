// HTTP query parameters → ListQuery, checked against the resource and the caller's readable fields.
// Every problem is reported, each naming its parameter.
import type { FilterOperator } from '../config/config-types.ts';
import { LIST_QUERY_OPERATORS } from '../config/filter-operators.ts';
import { QueryIssues, type RawQuery } from './query-issues.ts';
import type { Resource } from '../resources/resource.ts';
import type { FieldType } from '../resources/field-types/index.ts';
import { allOf, type FilterNode } from '../model/filter-node.ts';
import { DEFAULT_LIKE_PATTERN_LIMITS, likePatternProblem, type LikePatternLimits } from './like-pattern-limits.ts';
import { parseKeysetPage } from './keyset-cursor.ts';
import { isCompoundParameter } from './compound-parameter-names.ts';
import { systemFieldType } from './system-field-types.ts';
import { FILTER_PARAMETER, parseFilterParameter } from './parse-filter-parameter.ts';
import { DEFAULT_FILTER_LIMITS, type FilterLimits } from './filter-limits.ts';
import type { SessionVariables } from '../model/session-variables.ts';
import { parseSearch } from './parse-search.ts';
import {
  RANK_SORT_KEY,
  type ListSearch,
  DEFAULT_LIMIT,
  MAX_FILTERS,
  MAX_IN_VALUES,
  MAX_LIMIT,
  MAX_QUERY_VALUES,
  type ListQuery,
  type SortKey,
} from './list-query.ts';

// JSON:API's filter family as aliases of the spec's filter parameters (docs/records.md): clients such
// as kitsu send `filter[field]=value` and `filter[field][op]=value` for `field=value` and `field__op=value`.
const FILTER_FAMILY = /^filter\[([^[\]]+)\](?:\[([^[\]]+)\])?$/;

/**
 * The spec's name for a filter parameter: `filter[title]` → `title`, `filter[views][gte]` → `views__gte`,
 * any other name unchanged. Undefined for a `filter[` name of another shape (`filter[]`, three levels).
 */
function filterParameterName(name: string): string | undefined {
  if (!name.startsWith('filter[')) return name;
  const match = FILTER_FAMILY.exec(name);
  if (match === null) return undefined;
  return match[2] === undefined ? match[1]! : `${match[1]!}__${match[2]}`;
}

/** Full-text search of a list (docs/search.md). */
export const SEARCH_PARAMETER = '_search';

export const LIST_OPERATORS: ReadonlySet<FilterOperator> = new Set(LIST_QUERY_OPERATORS);

/** The list's own parameters: never filters. A field named `sort` is filtered as `filter[sort]` or `sort__eq`. */
export const LIST_PARAMETERS: ReadonlySet<string> = new Set([
  '_limit',
  '_offset',
  '_sort',
  'sort',
  'fields',
  'page[limit]',
  'page[offset]',
  'page[size]',
  'page[number]',
  'page[after]',
  'page[before]',
  SEARCH_PARAMETER,
]);

/** Parameters that are never filters (spec 4.1, docs/records.md). */
const IGNORED = new Set(['events', 'token', 'lastEventId']);

/** How `_filter` is read: the caller's session variables and the bounds on its tree. */
export interface FilterParameterOptions {
  vars: SessionVariables;
  limits: FilterLimits;
}

const NO_USER: FilterParameterOptions = { vars: { userId: null, role: '' }, limits: DEFAULT_FILTER_LIMITS };

export type { RawQuery } from './query-issues.ts';

export function parseListQuery(
  raw: RawQuery,
  resource: Resource,
  readable: ReadonlySet<string>,
  likeLimits: LikePatternLimits = DEFAULT_LIKE_PATTERN_LIMITS,
  filterOptions: FilterParameterOptions = NO_USER,
): ListQuery {
  const issues = new QueryIssues(raw);
  const fail = issues.fail.bind(issues);
  const single = issues.single.bind(issues);
  const fieldTypeOf = (field: string): FieldType | undefined =>
    systemFieldType(field) ?? resource.fields.get(field)?.type;
  const isReadable = (field: string) => systemFieldType(field) !== undefined || readable.has(field);
  const integerParam = issues.integer.bind(issues);

  // `page[size]` and `page[number]` are JSON:API's page-based spelling (kitsu and others send them);
  // a page number is an offset of whole pages, so it cannot be given with an offset.
  const limit = integerParam(['_limit', 'page[limit]', 'page[size]'], DEFAULT_LIMIT, 1, MAX_LIMIT);
  const pageNumber = integerParam(['page[number]', '_offset', 'page[offset]'], 0, 0, Number.MAX_SAFE_INTEGER);
  const numbered = raw['page[number]'] !== undefined;
  if (numbered && raw['page[number]'] === '0')
    fail('page[number]', "Parameter 'page[number]' must be an integer from 1 up (the first page is 1)");
  const offset = numbered ? Math.min(Math.max(pageNumber - 1, 0) * limit, Number.MAX_SAFE_INTEGER) : pageNumber;
  const carriedNames = new Set<string>();

  let search: ListSearch | undefined;
  const searchText = single(SEARCH_PARAMETER);
  if (searchText !== undefined) {
    carriedNames.add(SEARCH_PARAMETER);
    search = searchOf(searchText, resource, readable, (detail) => fail(SEARCH_PARAMETER, detail));
  }

  // `sort` is JSON:API's name, `_sort` svc's own; they mean the same and only one may be given.
  const sort: SortKey[] = [];
  let rank: ListQuery['rank'];
  const sortNames = ['_sort', 'sort'].filter((name) => raw[name] !== undefined);
  if (sortNames.length > 1) fail(sortNames[1]!, 'Use only one of _sort and sort');
  const sortName = sortNames[0];
  const sortText = sortName === undefined ? undefined : single(sortName);
  if (sortName !== undefined && sortText !== undefined) {
    carriedNames.add(sortName);
    for (const part of sortText.split(',')) {
      const descending = part.startsWith('-');
      const field = descending ? part.slice(1) : part;
      if (field === RANK_SORT_KEY) {
        if (searchText === undefined) fail(sortName, `Sorting by ${RANK_SORT_KEY} needs ${SEARCH_PARAMETER}`);
        else if (rank !== undefined || sort.length > 0)
          fail(sortName, `${RANK_SORT_KEY} can only be the first key of ${sortName}`);
        else rank = { descending };
      } else if (!fieldTypeOf(field)) fail(sortName, `Cannot sort by unknown field '${field}'`);
      else if (!isReadable(field)) fail(sortName, `Field '${field}' is not readable`, 'INVALID_FIELDS');
      else if (!resource.sortable.has(field)) fail(sortName, `Field '${field}' is not sortable`);
      else if (sort.some((s) => s.field === field)) fail(sortName, `Field '${field}' appears twice in ${sortName}`);
      else sort.push({ field, descending });
    }
  }

  let fields: string[] | null = null;
  const fieldsText = single('fields');
  if (fieldsText !== undefined) {
    carriedNames.add('fields');
    fields = [];
    for (const field of fieldsText.split(',').map((f) => f.trim())) {
      if (!fieldTypeOf(field)) fail('fields', `Unknown field '${field}'`);
      else if (!isReadable(field)) fail('fields', `Field '${field}' is not readable`, 'INVALID_FIELDS');
      else if (systemFieldType(field) === undefined && !fields.includes(field)) fields.push(field);
    }
  }

  const conditions: FilterNode[] = [];
  let listValues = 0;
  const filterText = single(FILTER_PARAMETER);
  if (filterText !== undefined) {
    carriedNames.add(FILTER_PARAMETER);
    try {
      // The tree is one condition of the list: it and the `field__op` parameters are joined by AND.
      conditions.push(parseFilterParameter(filterText, resource, { readable, likeLimits, ...filterOptions }));
    } catch (error) {
      issues.absorb(error);
    }
  }
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined || IGNORED.has(name) || name === FILTER_PARAMETER) continue;
    if (LIST_PARAMETERS.has(name)) continue;
    // `include` and `fields[<type>]` shape the document, not the rows (parse-compound-query.ts); links carry them.
    if (isCompoundParameter(name)) {
      if (!Array.isArray(value)) carriedNames.add(name);
      continue;
    }
    if (name.startsWith('_') || name.startsWith('page[')) {
      fail(name, `Unknown parameter '${name}'`);
      continue;
    }
    const text = single(name);
    if (text === undefined) continue;
    // Errors and links keep the name the caller gave; the filter is read from the spec's spelling of it.
    const filterName = filterParameterName(name);
    if (filterName === undefined) {
      fail(name, `Parameter '${name}' must be filter[field] or filter[field][operator]`);
      continue;
    }
    const separator = filterName.lastIndexOf('__');
    const suffix = separator > 0 ? filterName.slice(separator + 2) : '';
    const hasOperator = separator > 0 && !fieldTypeOf(filterName);
    const field = hasOperator ? filterName.slice(0, separator) : filterName;
    const op = (hasOperator ? suffix : 'eq') as FilterOperator;
    const type = fieldTypeOf(field);
    if (!type) {
      fail(name, `Unknown filter field '${field}'`);
      continue;
    }
    if (!isReadable(field)) {
      fail(name, `Field '${field}' is not readable`, 'INVALID_FIELDS');
      continue;
    }
    if (!LIST_OPERATORS.has(op)) {
      fail(name, `Unknown operator '${suffix}'`);
      continue;
    }
    if (!type.operators.has(op)) {
      fail(name, `Operator '${op}' does not apply to ${type.name} field '${field}'`);
      continue;
    }
    carriedNames.add(name);
    const definition = resource.fields.get(field)?.definition ?? { type: type.name };
    try {
      // U+0000, which PostgreSQL text cannot hold, never gets here: the HTTP layer refuses it in any query string.
      const ignoresValue = op === 'is_null' || op === 'is_not_null';
      let parsed: unknown = null;
      if (op === 'in' || op === 'nin') {
        const parts = text === '' ? [] : text.split(',');
        if (parts.length > MAX_IN_VALUES) throw new Error(`at most ${MAX_IN_VALUES} values`);
        listValues += parts.length;
        parsed = parts.map((p) => type.parse(p, definition));
      } else if (op === 'like' || op === 'ilike') {
        const problem = likePatternProblem(text, likeLimits);
        if (problem !== null) throw new Error(problem);
        parsed = text;
      } else if (!ignoresValue) parsed = type.parse(text, definition);
      conditions.push({ kind: 'condition', field, op, value: parsed });
    } catch (error) {
      fail(name, `Invalid value for '${name}': ${(error as Error).message}`);
    }
  }
  const keyset = parseKeysetPage(
    {
      after: single('page[after]'),
      before: single('page[before]'),
      offsetGiven: raw._offset !== undefined || raw['page[offset]'] !== undefined || numbered,
    },
    sort,
    resource,
    fail,
  );
  // A cursor holds sort values; a relevance is not one a later request could compare with.
  if (rank !== undefined && keyset)
    fail(keyset.side === 'after' ? 'page[after]' : 'page[before]', `Cursor pages cannot be sorted by ${RANK_SORT_KEY}`);
  if (conditions.length > MAX_FILTERS) fail('filter', `At most ${MAX_FILTERS} filters per request`);
  if (listValues > MAX_QUERY_VALUES)
    fail('filter', `At most ${MAX_QUERY_VALUES} in/nin values per request, all lists together`);

  issues.throwIfAny();
  // Links repeat the parameters in the order the caller gave them.
  const carried = Object.entries(raw).filter(([name]) => carriedNames.has(name)) as [string, string][];
  const query: ListQuery = { filter: allOf(conditions), sort, limit, offset, fields, carried };
  if (numbered) query.pageStyle = 'number';
  if (keyset) query.keyset = keyset;
  if (search) query.search = search;
  if (rank) query.rank = rank;
  return query;
}

/** `_search`'s terms over the searchable fields the caller may read, or undefined after `fail`. */
function searchOf(
  text: string,
  resource: Resource,
  readable: ReadonlySet<string>,
  fail: (detail: string) => void,
): ListSearch | undefined {
  if (!resource.search) {
    fail(`Resource '${resource.name}' has no searchable field`);
    return undefined;
  }
  // Only fields the caller may read are searched: a word found only in another field must not tell
  // that it is there.
  const fields = resource.search.fields.filter((field) => readable.has(field));
  if (fields.length === 0) {
    fail(`None of ${resource.name}'s searchable fields is readable to you`);
    return undefined;
  }
  try {
    return { terms: parseSearch(text), fields };
  } catch (error) {
    fail(`Invalid value for '${SEARCH_PARAMETER}': ${(error as Error).message}`);
    return undefined;
  }
}
