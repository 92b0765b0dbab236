// The list query in the console URL: filters `field__op=value`, `_sort`, paging and `fields`.
/** One filter operator a field takes, as the API's OpenAPI document describes it. */
export interface FilterOperator {
  op: string;
  /** What it tests, in the API's words ("equals the value"). */
  text: string;
  /** Only the parameter's presence matters (is_null, is_not_null). */
  valueless: boolean;
}

/** Field name → the operators its list filter takes, in the order the API lists them. */
export type FilterOperators = ReadonlyMap<string, readonly FilterOperator[]>;

/**
 * The operators of each field, read from the list endpoint's query parameters in /openapi.json: each
 * filter parameter carries `x-filter: {field, operator}`. The console keeps no list of its own, so a
 * field type or operator the server adds shows up here as it is.
 */
export function filterOperatorsOf(parameters: unknown): FilterOperators {
  const out = new Map<string, FilterOperator[]>();
  if (!Array.isArray(parameters)) return out;
  for (const parameter of parameters) {
    const filter = parameter?.['x-filter'];
    if (typeof filter?.field !== 'string' || typeof filter?.operator !== 'string') continue;
    let ops = out.get(filter.field);
    if (!ops) out.set(filter.field, (ops = []));
    // `<field>` and `<field>__eq` both filter by eq: list it once.
    if (ops.some((known) => known.op === filter.operator)) continue;
    const description = typeof parameter.description === 'string' ? parameter.description : '';
    const text = description.replace(/^Filter: `[^`]*` /, '').replace(/\.$/, '');
    ops.push({ op: filter.operator, text, valueless: filter.valueless === true });
  }
  return out;
}

export interface Filter {
  field: string;
  op: string;
  value: string;
}

/** Console-only parameters that are not sent to the API. */
export const VIEW_PARAMS = new Set(['record', 'new']);
/** What shapes the list rather than filter it (`_search` has its own box): kept when the filters change. */
const LIST_PARAMS = new Set(['_search', '_sort', '_limit', '_offset', 'page[limit]', 'page[offset]', 'fields']);

/** Whether `op` of `field` only needs the parameter's presence. */
export function isValueless(operators: FilterOperators, field: string, op: string): boolean {
  return operators.get(field)?.find((known) => known.op === op)?.valueless === true;
}

/** The filters in the console URL; `field__op` is split where `op` is one the field takes. */
export function filtersOf(params: URLSearchParams, operators: FilterOperators): Filter[] {
  const out: Filter[] = [];
  for (const [key, value] of params) {
    // `_filter` is the builder's groups (filter-tree.ts), not a field.
    if (VIEW_PARAMS.has(key) || LIST_PARAMS.has(key) || key === '_filter') continue;
    const at = key.lastIndexOf('__');
    const field = key.slice(0, at);
    const op = key.slice(at + 2);
    if (at > 0 && operators.get(field)?.some((known) => known.op === op)) out.push({ field, op, value });
    else out.push({ field: key, op: 'eq', value });
  }
  return out;
}

export function withFilters(params: URLSearchParams, filters: Filter[], operators: FilterOperators): URLSearchParams {
  const next = new URLSearchParams();
  for (const [key, value] of params) if (LIST_PARAMS.has(key)) next.append(key, value);
  next.delete('page[offset]');
  for (const filter of filters)
    if (filter.field)
      next.append(`${filter.field}__${filter.op}`, isValueless(operators, filter.field, filter.op) ? '' : filter.value);
  return next;
}

/** The API query for the list: the console URL's parameters minus the view-only ones. */
export function apiQuery(params: URLSearchParams): string {
  const next = new URLSearchParams();
  for (const [key, value] of params) if (!VIEW_PARAMS.has(key)) next.append(key, value);
  if (!next.has('page[limit]') && !next.has('_limit')) next.set('page[limit]', '25');
  return next.toString().replaceAll('%5B', '[').replaceAll('%5D', ']').replaceAll('%2C', ',');
}

/** An export's query: the list's filters, sort and fields, without its page (an export holds every row). */
export function exportQuery(params: URLSearchParams, format: 'csv' | 'ndjson'): string {
  const next = new URLSearchParams();
  for (const [key, value] of params) {
    if (VIEW_PARAMS.has(key) || key === '_limit' || key === '_offset' || key.startsWith('page[')) continue;
    next.append(key, value);
  }
  next.set('_format', format);
  return next.toString().replaceAll('%5B', '[').replaceAll('%5D', ']').replaceAll('%2C', ',');
}
