// JSON:API's filter family as aliases of the spec's filter parameters (docs/records.md): clients such
// as kitsu send `filter[field]=value` and `filter[field][op]=value` for `field=value` and `field__op=value`.

const FILTER_FAMILY = /^filter\[([^[\]]+)\](?:\[([^[\]]+)\])?$/;

/**
 * The spec's name for a filter parameter: `filter[title]` → `title`, `filter[views][gte]` → `views__gte`,
 * any other name unchanged. Undefined for a `filter[` name of another shape (`filter[]`, three levels).
 */
export function filterParameterName(name: string): string | undefined {
  if (!name.startsWith('filter[')) return name;
  const match = FILTER_FAMILY.exec(name);
  if (match === null) return undefined;
  return match[2] === undefined ? match[1]! : `${match[1]!}__${match[2]}`;
}
