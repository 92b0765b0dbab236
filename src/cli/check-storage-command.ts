// `svc check-storage`: compares storage with the records, prints what differs, and with --repair removes
// orphans (objects no record references, older than --older-than seconds) and moves committed uploads
// left under tmp/ into place. Files a record names that storage lacks are reported; nothing restores them.
import type { SvcConfig } from '../config/config-types.ts';
import { auditStorage, ORPHAN_GRACE_MS, repairStorage } from '../files/storage-audit.ts';
import { createFileStorage } from '../files/storage/create-file-storage.ts';
import { referencedFiles } from '../records/referenced-files.ts';
import { ResourceRegistry } from '../resources/resource-registry.ts';
import { createStore } from '../store/create-store.ts';
import type { CliValues } from './cli-values.ts';

/** The grace period from `--older-than SECONDS`; undefined when the value is not a whole number. */
function graceOf(value: unknown): number | undefined {
  if (value === undefined) return ORPHAN_GRACE_MS;
  if (typeof value !== 'string' || !/^(0|[1-9][0-9]{0,9})$/.test(value)) return undefined;
  return Number(value) * 1000;
}

export async function runCheckStorageCommand(config: SvcConfig, values: CliValues): Promise<number> {
  const graceMs = graceOf(values['older-than']);
  if (graceMs === undefined) {
    process.stderr.write('svc check-storage: --older-than takes whole seconds (0 or more)\n');
    return 2;
  }
  const store = createStore(config.database.url);
  const storage = createFileStorage(config);
  try {
    const registry = new ResourceRegistry(config);
    const audit = await auditStorage(storage, await referencedFiles(store, registry.all()), { graceMs });
    const lines = [
      `${audit.objects} objects in storage; ${audit.orphans.length} orphaned (older than ${graceMs / 1000} s), ` +
        `${audit.unmoved.length} not moved into place, ${audit.missing.length} missing`,
      ...audit.orphans.map(
        (object) => `orphan: ${object.key} (${object.size} bytes, ${object.modifiedAt.toISOString()})`,
      ),
      ...audit.unmoved.map(({ key, target }) => `not moved: ${key} -> ${target}`),
      ...audit.missing.map((file) => `missing: file ${file.fileId} of ${file.resource}/${file.recordId} ${file.field}`),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    if (values.repair === true) {
      const changed = await repairStorage(storage, audit);
      process.stdout.write(`repaired: ${changed} objects removed or moved\n`);
      return audit.missing.length > 0 ? 1 : 0;
    }
    return audit.orphans.length + audit.unmoved.length + audit.missing.length > 0 ? 1 : 0;
  } finally {
    await storage.close();
    await store.close();
  }
}
