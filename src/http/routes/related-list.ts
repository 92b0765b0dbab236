// The to-many side of a relation: GET /v1/<target>/:id/<resource> lists the records of <resource> whose
// relation field refers to that target record, with the list query language (docs/records.md,
// "Relationships"). When more than one field of <resource> refers to <target>, `_via=<field>` names one.
import { ApiError } from '../../errors/api-error.ts';
import type { Resource } from '../../resources/resource.ts';
import { fieldsReferring } from '../../resources/relations.ts';
import { resolveAccess } from '../../permissions/resolve-access.ts';
import type { Principal } from '../../auth/principal.ts';
import type { RawQuery } from '../../query/parse-list-query.ts';
import type { ListScope } from '../../records/record-service.ts';

/** The list's scope, and the query left for the list itself (`_via` taken out). */
export function relatedListScope(target: Resource, id: string, child: Resource, raw: RawQuery, principal: Principal): { scope: ListScope; query: RawQuery } {
  const { _via: via, ...query } = raw;
  const referring = fieldsReferring(child, target);
  if (referring.length === 0) throw new ApiError('ROUTE_NOT_FOUND', `${child.name} has no relation to ${target.name}`);
  if (Array.isArray(via)) throw new ApiError('INVALID_QUERY_PARAMS', { parameter: '_via', detail: "Parameter '_via' is given more than once" });
  let field: string;
  if (via !== undefined) {
    const chosen = referring.find((relation) => relation.field === via || relation.name === via);
    if (!chosen) {
      const names = referring.map((relation) => relation.field).join(', ');
      throw new ApiError('INVALID_QUERY_PARAMS', { parameter: '_via', detail: `'${via}' is not a relation field of ${child.name} to ${target.name} (${names})` });
    }
    field = chosen.field;
  } else if (referring.length > 1) {
    const names = referring.map((relation) => relation.field).join(', ');
    throw new ApiError('INVALID_QUERY_PARAMS', { parameter: '_via', detail: `Several fields of ${child.name} refer to ${target.name}: name one with _via (${names})` });
  } else {
    field = referring[0]!.field;
  }
  // Listing by a field the caller may not read would tell what it holds, as filtering by it would.
  if (!resolveAccess(child, principal, 'read').fields.has(field)) {
    throw new ApiError('INVALID_FIELDS', { parameter: '_via', detail: `Field '${field}' of ${child.name} is not readable` });
  }
  const base = `/v1/${target.name}/${encodeURIComponent(id)}/${child.name}`;
  const path = via === undefined ? base : `${base}?_via=${encodeURIComponent(field)}`;
  return { scope: { field, id, path }, query };
}
