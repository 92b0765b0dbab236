// A schema plan's changes that could lose data are refused unless explicitly allowed, and the ones the
// stored data rules out are refused always (src/cluster/resource-schema.ts plans, guards, applies).
import { formatSchemaChange, type SchemaChange, type SchemaPlan } from './plan-resource-schema.ts';

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
      parts.push(
        `The configuration cannot be applied to the data as it is:\n${blocked.map((c) => `  - ${c}`).join('\n')}`,
      );
    }
    super(parts.join('\n'));
    this.name = 'DestructiveChangeError';
  }
}

/** Throws when the plan holds a change that is not allowed (destructive ones without the flag, blocked ones ever). */
export function assertPlanAllowed(plan: SchemaPlan, options: { allowDestructive: boolean }): void {
  const describe = (c: SchemaChange) => formatSchemaChange(c).slice(2);
  const destructive = options.allowDestructive
    ? []
    : plan.changes.filter((c) => c.destructive && !c.blocked).map(describe);
  const blocked = plan.changes.filter((c) => c.blocked).map(describe);
  if (destructive.length > 0 || blocked.length > 0) throw new DestructiveChangeError(destructive, blocked);
}
