// The list query in the console URL: filters `field__op=value`, `_sort`, paging and `fields`.
export const OPERATORS = [
  ['eq', 'equals'],
  ['neq', 'does not equal'],
  ['gt', 'greater than'],
  ['gte', 'at least'],
  ['lt', 'less than'],
  ['lte', 'at most'],
  ['in', 'is one of (a,b)'],
  ['nin', 'is none of (a,b)'],
  ['is_null', 'is empty'],
  ['is_not_null', 'is not empty'],
  ['like', 'matches (case-sensitive, %)'],
  ['ilike', 'matches (any case, %)'],
] as const;

export type Operator = (typeof OPERATORS)[number][0];
export const VALUELESS = new Set<string>(['is_null', 'is_not_null']);
const OPERATOR_NAMES = new Set<string>(OPERATORS.map(([op]) => op));

export interface Filter {
  field: string;
  op: string;
  value: string;
}

/** Console-only parameters that are not sent to the API. */
export const VIEW_PARAMS = new Set(['record', 'new']);
const LIST_PARAMS = new Set(['_sort', '_limit', '_offset', 'page[limit]', 'page[offset]', 'fields']);

export function filtersOf(params: URLSearchParams): Filter[] {
  const out: Filter[] = [];
  for (const [key, value] of params) {
    if (VIEW_PARAMS.has(key) || LIST_PARAMS.has(key)) continue;
    const at = key.lastIndexOf('__');
    const op = at > 0 ? key.slice(at + 2) : '';
    if (at > 0 && OPERATOR_NAMES.has(op)) out.push({ field: key.slice(0, at), op, value });
    else out.push({ field: key, op: 'eq', value });
  }
  return out;
}

export function withFilters(params: URLSearchParams, filters: Filter[]): URLSearchParams {
  const next = new URLSearchParams();
  for (const [key, value] of params) if (LIST_PARAMS.has(key)) next.append(key, value);
  next.delete('page[offset]');
  for (const filter of filters) if (filter.field) next.append(`${filter.field}__${filter.op}`, VALUELESS.has(filter.op) ? '' : filter.value);
  return next;
}

/** The API query for the list: the console URL's parameters minus the view-only ones. */
export function apiQuery(params: URLSearchParams): string {
  const next = new URLSearchParams();
  for (const [key, value] of params) if (!VIEW_PARAMS.has(key)) next.append(key, value);
  if (!next.has('page[limit]') && !next.has('_limit')) next.set('page[limit]', '25');
  return next.toString().replaceAll('%5B', '[').replaceAll('%5D', ']').replaceAll('%2C', ',');
}
