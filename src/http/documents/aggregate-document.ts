// An aggregate answer as a JSON:API document (docs/records.md, "Aggregates"): one resource object per
// group, type `<resource>-aggregates`, its id the group's values as JSON text, its attributes the group
// fields' values, `count`, and `sum`/`avg`/`min`/`max` each keyed by field.
import type { AggregateGroup } from '../../records/record-service.ts';
import type { Resource } from '../../resources/resource.ts';

export function aggregateDocument(resource: Resource, groups: readonly AggregateGroup[], self: string) {
  const data = groups.map((group) => {
    const attributes: Record<string, unknown> = {};
    for (const [field, value] of group.values) attributes[field] = value;
    if (group.count !== undefined) attributes.count = group.count;
    for (const [fn, values] of group.aggregates) attributes[fn] = Object.fromEntries(values);
    return {
      type: `${resource.name}-aggregates`,
      id: JSON.stringify(group.values.map(([, value]) => value)),
      attributes,
    };
  });
  return { data, meta: { groups: data.length }, links: { self } };
}
