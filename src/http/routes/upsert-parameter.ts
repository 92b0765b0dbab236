// `?_upsert=<field>` on POST /v1/:resource: create the record, or update the one whose unique field
// holds the body's value (docs/atomic.md, "Upsert"). A query parameter rather than a header or a body
// member: it is visible in logs and the OpenAPI document, and leaves the body exactly a record's.
import { ApiError } from '../../errors/api-error.ts';
import type { Resource } from '../../resources/resource.ts';
import type { RawQuery } from '../../query/parse-list-query.ts';
import { isUpsertField } from '../../records/record-service.ts';

export const UPSERT_PARAMETER = '_upsert';

/** The unique field the request upserts by, or undefined for a plain create. */
export function upsertFieldOf(resource: Resource, query: RawQuery | undefined): string | undefined {
  if (query === undefined || !Object.hasOwn(query, UPSERT_PARAMETER)) return undefined;
  const value = query[UPSERT_PARAMETER];
  if (typeof value !== 'string' || !isUpsertField(resource, value)) {
    const unique = [...resource.fields.values()]
      .filter((field) => field.definition.unique === true)
      .map((field) => field.name);
    const hint = unique.length > 0 ? `one of: ${unique.join(', ')}` : `${resource.name} has none`;
    throw new ApiError('INVALID_QUERY_PARAMS', {
      detail: `${UPSERT_PARAMETER} must name one unique field of ${resource.name} (${hint})`,
      parameter: UPSERT_PARAMETER,
    });
  }
  return value;
}
