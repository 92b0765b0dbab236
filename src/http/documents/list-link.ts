// A link to a page of a list, offset or keyset alike: the list's path (which may carry `_via` already),
// the parameters the caller gave that links repeat (filters, `_sort`, `fields`, `include`), then the page's own.
import type { ListQuery } from '../../query/list-query.ts';

export function listLink(base: string, query: ListQuery, page: readonly string[]): string {
  const parts = query.carried.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
  parts.push(...page);
  return `${base}${base.includes('?') ? '&' : '?'}${parts.join('&')}`;
}
