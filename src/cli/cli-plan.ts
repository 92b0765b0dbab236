// `svc plan`: prints what `svc start` would change in the configured database, changing nothing.
// Exit 0 when every change is safe (or there is none), 1 when one is destructive or cannot be applied.
import type { SvcConfig } from '../config/config-types.ts';
import { ResourceRegistry } from '../resources/resource-registry.ts';
import { openStoreToPlan } from '../store/open-store-to-plan.ts';
import { formatSchemaChange } from '../store/plan-resource-schema.ts';
import { planResourceSchema } from '../cluster/resource-schema.ts';

export async function runPlanCommand(config: SvcConfig, out: NodeJS.WritableStream = process.stdout): Promise<number> {
  const store = openStoreToPlan(config.database.url);
  try {
    const { changes } = await planResourceSchema(store, new ResourceRegistry(config));
    if (changes.length === 0) {
      out.write('No changes: the database matches the configuration.\n');
      return 0;
    }
    const destructive = changes.filter((c) => c.destructive && !c.blocked).length;
    const blocked = changes.filter((c) => c.blocked).length;
    const summary = [`${changes.length} change${changes.length === 1 ? '' : 's'}`];
    if (destructive > 0)
      summary.push(`${destructive} destructive (svc start refuses them without --allow-destructive)`);
    if (blocked > 0) summary.push(`${blocked} that cannot be applied to the data as it is`);
    out.write(`${changes.map(formatSchemaChange).join('\n')}\n${summary.join(', ')}.\n`);
    return destructive > 0 || blocked > 0 ? 1 : 0;
  } finally {
    await store.close();
  }
}
