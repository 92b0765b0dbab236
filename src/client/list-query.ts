// The list query language, typed from a resource's fields, and its encoding as URL parameters
// (`field__op=value`, `_search`, `_sort`, `fields`, `page[limit]`/`page[offset]` or cursors).
import type { SystemFields } from './schema-types.ts';

type Scalar<V> = Exclude<V, null | undefined>;
type Comparison = 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte';
type TextOnly = 'like' | 'ilike';

/** The filter parameters of a resource with fields `F`: `title`, `title__neq`, `views__gte`, `status__in`, … */
export type Filter<F extends object> = {
  [K in keyof (F & SystemFields) & string as K | `${K}__${Comparison}`]?: Scalar<(F & SystemFields)[K]>;
} & {
  [K in keyof (F & SystemFields) & string as `${K}__in` | `${K}__nin`]?: readonly Scalar<(F & SystemFields)[K]>[];
} & {
  [K in keyof (F & SystemFields) & string as `${K}__is_null` | `${K}__is_not_null`]?: true;
} & {
  [K in keyof (F & SystemFields) & string as Scalar<(F & SystemFields)[K]> extends string
    ? `${K}__${TextOnly}`
    : never]?: string;
};

/** A sort key: a sortable field, ascending, or `-field`, descending. */
export type SortKey<S extends string> = S | `-${S}`;

export interface ListQuery<F extends object, S extends string> {
  filter?: Filter<F>;
  /**
   * Full-text search in the resource's searchable fields (`_search`): words, `"a phrase"`, `prefix*`.
   * Sort by `-_rank` for the best matches first.
   */
  search?: string;
  sort?: readonly SortKey<S | 'id' | 'created_at' | 'updated_at' | '_rank'>[];
  /** Only these fields (id, created_at and updated_at always come). */
  fields?: readonly (keyof F & string)[];
  /** 1 to 1000 (the server's default is 50). */
  limit?: number;
  offset?: number;
  /** Keyset pages: the cursor from a page's `links.next` / `links.prev`; '' for an end of the list. */
  after?: string;
  before?: string;
}

type Loose = Record<string, unknown>;

function encodeValue(value: unknown): string {
  if (Array.isArray(value)) return value.map(encodeValue).join(',');
  return String(value);
}

/** The URL parameters of a list query, in a stable order. */
export function listQueryParams(query: ListQuery<object, string>): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries((query.filter ?? {}) as Loose)) {
    if (value === undefined) continue;
    params.append(name, encodeValue(value));
  }
  if (query.search !== undefined && query.search !== '') params.set('_search', query.search);
  if (query.sort !== undefined && query.sort.length > 0) params.set('_sort', query.sort.join(','));
  if (query.fields !== undefined) params.set('fields', query.fields.join(','));
  if (query.limit !== undefined) params.set('page[limit]', String(query.limit));
  if (query.offset !== undefined) params.set('page[offset]', String(query.offset));
  if (query.after !== undefined) params.set('page[after]', query.after);
  if (query.before !== undefined) params.set('page[before]', query.before);
  return params;
}
