// A list's `_search` as the store reads it: the resource's index, the fields searched and the terms.
import type { Resource } from '../resources/resource.ts';
import type { SearchMatch } from '../store/search-index.ts';
import type { ListSearch } from './list-query.ts';

export function searchMatchOf(resource: Resource, search: ListSearch): SearchMatch {
  // The parser admits `_search` only on a resource with searchable fields.
  const index = resource.search!;
  return {
    index: { columns: index.fields, language: index.language },
    columns: search.fields,
    terms: search.terms,
  };
}
