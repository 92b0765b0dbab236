// Makes the database match the resource definitions: each resource's table spec, judged against the
// definitions last applied (recorded in the database), is planned by store/, the changes that could lose
// data are refused unless explicitly allowed, and the plan is applied. `svc plan` prints the same plan.
import type { FieldDefinition } from '../config/config-types.ts';
import type { ResourceRegistry } from '../resources/resource-registry.ts';
import { tableSpecOf } from '../resources/table-spec.ts';
import { applySchemaPlan } from '../store/apply-schema-plan.ts';
import type { Store } from '../store/create-store.ts';
import { assertPlanAllowed } from '../store/destructive-change.ts';
import { planSchema, type PreviousFields, type SchemaPlan } from '../store/plan-resource-schema.ts';
import { DEFINITIONS_TABLE, latestDefinitions } from './definitions-store.ts';

export async function planResourceSchema(store: Store, registry: ResourceRegistry): Promise<SchemaPlan> {
  return planSchema(store, registry.all().map(tableSpecOf), await previousFields(store));
}

export async function applyResourceSchema(
  store: Store,
  registry: ResourceRegistry,
  options: { allowDestructive: boolean },
): Promise<SchemaPlan> {
  const plan = await planResourceSchema(store, registry);
  assertPlanAllowed(plan, options);
  await applySchemaPlan(store, plan);
  return plan;
}

/** The field definitions last applied, per resource; empty when none were recorded. */
async function previousFields(store: Store): Promise<PreviousFields> {
  const byResource = new Map<string, Map<string, FieldDefinition>>();
  if ((await store.dialect.listColumns(store.db, DEFINITIONS_TABLE)).length === 0) return byResource;
  const latest = await latestDefinitions(store.db);
  for (const [name, definition] of Object.entries(latest?.definitions ?? {})) {
    byResource.set(name, new Map(Object.entries(definition.fields ?? {})));
  }
  return byResource;
}
