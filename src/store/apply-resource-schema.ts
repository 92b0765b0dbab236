// Makes the database match the resource definitions: plans the changes (plan-resource-schema.ts), refuses
// the ones that could lose data unless explicitly allowed, and applies the plan.
import type { ResourceRegistry } from '../resources/resource-registry.ts';
import { applySchemaPlan } from './apply-schema-plan.ts';
import type { Store } from './create-store.ts';
import { formatSchemaChange, planResourceSchema, type SchemaChange, type SchemaPlan } from './plan-resource-schema.ts';

export class DestructiveChangeError extends Error {
  constructor(
    readonly changes: string[],
    readonly blocked: string[] = [],
  ) {
    const parts: string[] = [];
    if (changes.length > 0) {
      parts.push(
        `Applying the configuration would lose data:\n${changes.map((c) => `  - ${c}`).join('\n')}\n` +
          'Start with --allow-destructive to apply it anyway.',
      );
    }
    if (blocked.length > 0) {
      parts.push(`The configuration cannot be applied to the data as it is:\n${blocked.map((c) => `  - ${c}`).join('\n')}`);
    }
    super(parts.join('\n'));
    this.name = 'DestructiveChangeError';
  }
}

/** Throws when the plan holds a change that is not allowed (destructive ones without the flag, blocked ones ever). */
export function assertPlanAllowed(plan: SchemaPlan, options: { allowDestructive: boolean }): void {
  const describe = (c: SchemaChange) => formatSchemaChange(c).slice(2);
  const destructive = options.allowDestructive ? [] : plan.changes.filter((c) => c.destructive && !c.blocked).map(describe);
  const blocked = plan.changes.filter((c) => c.blocked).map(describe);
  if (destructive.length > 0 || blocked.length > 0) throw new DestructiveChangeError(destructive, blocked);
}

export async function applyResourceSchema(store: Store, registry: ResourceRegistry, options: { allowDestructive: boolean }): Promise<SchemaPlan> {
  const plan = await planResourceSchema(store, registry);
  assertPlanAllowed(plan, options);
  await applySchemaPlan(store, plan);
  return plan;
}
