// Warnings about field names that are valid but that a list query cannot take bare: `sort` is JSON:API's
// sort parameter, so `?sort=x` sorts, and a field of that name is filtered as `filter[sort]=x` or `sort__eq=x`.
import type { ConfigProblem } from './config-problem.ts';
import type { SvcConfig } from './config-types.ts';

/** Field names that are also list parameters; a field keeps working, under the bracketed filter spelling. */
const SHADOWED: ReadonlyMap<string, string> = new Map([
  ['sort', "?sort= sorts the list (JSON:API's parameter); filter this field with filter[sort]=… or sort__eq=…"],
]);

export function fieldNameWarnings(config: Pick<SvcConfig, 'resources'>): ConfigProblem[] {
  const warnings: ConfigProblem[] = [];
  for (const [resource, definition] of Object.entries(config.resources)) {
    for (const field of Object.keys(definition.fields ?? {})) {
      const why = SHADOWED.get(field);
      if (why !== undefined)
        warnings.push({ path: `resources.${resource}.fields.${field}`, message: `a field named "${field}": ${why}` });
    }
  }
  return warnings;
}
