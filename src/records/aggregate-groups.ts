// Rows of an aggregate statement → groups in the API's form: each group's values as a record shows
// them, the count, and each function's values by field.
import type { AggregatePlan } from '../query/aggregate-plan.ts';
import type { AggregateFunction } from '../query/aggregate-query.ts';
import type { Resource } from '../resources/resource.ts';
import type { StoreDialect } from '../store/store-dialect.ts';

export interface AggregateGroup {
  /** The group fields' values, in `_group`'s order. */
  values: [field: string, value: unknown][];
  count?: number;
  /** Per function asked for, the value per field (null where no row had one). */
  aggregates: Map<AggregateFunction, Map<string, unknown>>;
}

/** A count or sum may come back as a text (a PostgreSQL bigint or numeric): numbers as JSON shows them. */
function numberOf(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value);
}

export function aggregateGroups(
  resource: Resource,
  dialect: StoreDialect,
  plan: AggregatePlan,
  rows: readonly Record<string, unknown>[],
): AggregateGroup[] {
  const decode = (field: string, value: unknown) => {
    const kind = resource.storageOf(field) ?? 'timestamp'; // the system fields other than id are times
    return value === null || value === undefined ? null : field === 'id' ? value : dialect.decode(kind, value);
  };
  return rows.map((row) => {
    const group: AggregateGroup = {
      values: plan.groups.map(({ alias, field }) => [field, decode(field, row[alias])]),
      aggregates: new Map(),
    };
    if (Object.hasOwn(row, 'count')) group.count = Number(row.count);
    for (const { alias, field, fn } of plan.aggregates) {
      const values = group.aggregates.get(fn) ?? new Map<string, unknown>();
      values.set(field, fn === 'sum' || fn === 'avg' ? numberOf(row[alias]) : decode(field, row[alias]));
      group.aggregates.set(fn, values);
    }
    return group;
  });
}
