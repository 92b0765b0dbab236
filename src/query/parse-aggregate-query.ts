// HTTP query parameters of GET /v1/:resource/aggregate → AggregateQuery, checked against the resource
// and the caller's readable fields. The filters (and `_search`) are the list's own, read by
// parse-list-query.ts; both report every problem through query-issues.ts, each naming its parameter.
import { QueryIssues } from './query-issues.ts';
import type { Resource } from '../resources/resource.ts';
import type { StorageKind } from '../store/storage-kind.ts';
import { NUMERIC_KINDS, ORDERED_KINDS } from '../resources/aggregate-functions.ts';
import { parseListQuery, type FilterParameterOptions, type RawQuery } from './parse-list-query.ts';
import type { LikePatternLimits } from './like-pattern-limits.ts';
import {
  AGGREGATE_FUNCTIONS,
  DEFAULT_AGGREGATE_LIMIT,
  MAX_AGGREGATE_LIMIT,
  MAX_AGGREGATES,
  MAX_GROUP_FIELDS,
  type AggregateFunction,
  type AggregateQuery,
  type AggregateSortKey,
} from './aggregate-query.ts';

const NUMERIC = NUMERIC_KINDS;
const ORDERED = ORDERED_KINDS;
const SYSTEM_STORAGE: ReadonlyMap<string, StorageKind> = new Map([
  ['id', 'text'],
  ['created_at', 'timestamp'],
  ['updated_at', 'timestamp'],
]);
const OWN_PARAMETERS = new Set(['_group', '_count', '_sort', '_limit', ...AGGREGATE_FUNCTIONS.map((f) => `_${f}`)]);
/** The list's parameters that shape a page of records, which groups do not have. */
const NOT_HERE = new Set(['_offset', 'sort', 'fields', 'include', '_format']);

export function parseAggregateQuery(
  raw: RawQuery,
  resource: Resource,
  readable: ReadonlySet<string>,
  likeLimits: LikePatternLimits,
  filterOptions: FilterParameterOptions,
): AggregateQuery {
  const issues = new QueryIssues(raw);
  const fail = issues.fail.bind(issues);
  const single = issues.single.bind(issues);
  const storageOf = (field: string) => SYSTEM_STORAGE.get(field) ?? resource.storageOf(field);
  const isReadable = (field: string) => SYSTEM_STORAGE.has(field) || readable.has(field);
  /** A field named in `parameter`: known, readable, and of a kind `allowed` takes; else an issue. */
  const field = (parameter: string, name: string, allowed: ReadonlySet<StorageKind>, what: string): boolean => {
    const kind = resource.fields.has(name) || SYSTEM_STORAGE.has(name) ? storageOf(name) : undefined;
    if (kind === undefined) fail(parameter, `Unknown field '${name}'`);
    else if (!isReadable(name)) fail(parameter, `Field '${name}' is not readable`, 'INVALID_FIELDS');
    else if (!allowed.has(kind)) fail(parameter, `Field '${name}' is not ${what}`);
    else return true;
    return false;
  };
  const names = (parameter: string): string[] => {
    const text = single(parameter);
    if (text === undefined) return [];
    return text.split(',').map((name) => name.trim());
  };

  const group: string[] = [];
  const groupNames = names('_group');
  // Refused whole before any name is looked at: a long list costs one error, not one per name.
  if (groupNames.length > MAX_GROUP_FIELDS) fail('_group', `At most ${MAX_GROUP_FIELDS} fields to group by`);
  for (const name of groupNames.length > MAX_GROUP_FIELDS ? [] : groupNames) {
    if (group.includes(name)) fail('_group', `Field '${name}' appears twice in _group`);
    else if (
      field('_group', name, ORDERED, 'one to group by (a json field has no equality)') &&
      !SYSTEM_STORAGE.has(name)
    )
      group.push(name);
    else if (SYSTEM_STORAGE.has(name) && isReadable(name))
      fail('_group', `Field '${name}' is unique to each record: group by a declared field`);
  }

  const countText = single('_count');
  if (countText !== undefined && countText !== '' && countText !== 'true')
    fail('_count', "Parameter '_count' takes no value");
  const aggregates = new Map<AggregateFunction, string[]>();
  let total = 0;
  for (const fn of AGGREGATE_FUNCTIONS) {
    const parameter = `_${fn}`;
    const fields: string[] = [];
    const given = names(parameter);
    if (total + given.length > MAX_AGGREGATES) {
      fail(parameter, `At most ${MAX_AGGREGATES} aggregates per request`);
      continue;
    }
    for (const name of given) {
      total++;
      const numeric = fn === 'sum' || fn === 'avg';
      if (fields.includes(name)) fail(parameter, `Field '${name}' appears twice in ${parameter}`);
      else if (
        field(parameter, name, numeric ? NUMERIC : ORDERED, numeric ? 'numeric' : 'ordered (a json field has no order)')
      )
        fields.push(name);
    }
    if (fields.length > 0) aggregates.set(fn, fields);
  }
  // Without any aggregate asked for, the groups are counted.
  const count = countText !== undefined || aggregates.size === 0;

  const sort: AggregateSortKey[] = [];
  const sortText = single('_sort');
  if (sortText !== undefined) {
    for (const part of sortText.split(',')) {
      const descending = part.startsWith('-');
      const key = descending ? part.slice(1) : part;
      const dot = key.indexOf('.');
      const fn = dot > 0 ? (key.slice(0, dot) as AggregateFunction) : undefined;
      const known =
        (key === 'count' && count) ||
        group.includes(key) ||
        (fn !== undefined && aggregates.get(fn)?.includes(key.slice(dot + 1)) === true);
      if (!known)
        fail('_sort', `Cannot sort by '${key}': sort by a _group field, count, or <function>.<field> asked for`);
      else if (sort.some((s) => s.key === key)) fail('_sort', `'${key}' appears twice in _sort`);
      else sort.push({ key, descending });
    }
  }

  const limit = issues.integer(['_limit'], DEFAULT_AGGREGATE_LIMIT, 1, MAX_AGGREGATE_LIMIT);

  const filters: RawQuery = {};
  for (const [name, value] of Object.entries(raw)) {
    if (OWN_PARAMETERS.has(name)) continue;
    if (NOT_HERE.has(name) || name.startsWith('page[') || name.startsWith('fields['))
      fail(name, `Parameter '${name}' does not apply to aggregates`);
    else filters[name] = value;
  }
  let filter: AggregateQuery['filter'] | undefined;
  let search: AggregateQuery['search'];
  try {
    ({ filter, search } = parseListQuery(filters, resource, readable, likeLimits, filterOptions));
  } catch (error) {
    issues.absorb(error);
  }
  issues.throwIfAny();
  // Without issues the list parser answered.
  if (filter === undefined) throw new Error('the filters were neither parsed nor refused');
  const query: AggregateQuery = { filter, group, count, aggregates, sort, limit };
  if (search) query.search = search;
  return query;
}
