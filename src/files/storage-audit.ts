// Storage against the records: objects no record references (an upload whose write never committed
// because the process died, a removal that failed), uploads left in `tmp/` after their record did
// commit (a crash before the move), and files a record names that storage does not hold. The orphan
// sweep (a retention pass) and `svc check-storage --repair` remove the first and move the second;
// missing files can only be reported. Only objects older than a grace period are touched, so an
// upload still on its way to its commit is never taken for an orphan.
import { derivedPrefix, type FileOwner, fileKey, pendingKey } from './file-keys.ts';
import type { FileStorage, StoredObject } from './storage/file-storage.ts';

/** Long enough for any upload to reach its commit; the retention pass uses it. */
export const ORPHAN_GRACE_MS = 60 * 60 * 1000;

export interface StorageAudit {
  /** Objects no record references, older than the grace period. */
  readonly orphans: StoredObject[];
  /** Committed uploads still under `tmp/`, with where they belong. */
  readonly unmoved: { readonly key: string; readonly target: string }[];
  /** Files records name that storage has neither in place nor under `tmp/`. */
  readonly missing: (FileOwner & { readonly fileId: string })[];
  /** Objects looked at. */
  readonly objects: number;
}

/** The file id a key is about, and whether it is where that file's record would keep it. */
function fileIdOf(
  key: string,
  references: ReadonlyMap<string, FileOwner>,
): { id: string; placed: boolean } | undefined {
  const parts = key.split('/');
  if (parts[0] === 'tmp' && parts.length === 2) return { id: parts[1] as string, placed: false };
  if (parts[0] === 'derived' && parts.length >= 6) {
    const id = parts[4] as string;
    const owner = references.get(id);
    return { id, placed: owner !== undefined && key.startsWith(derivedPrefix(owner, { id })) };
  }
  if (parts.length === 4) {
    const id = parts[3] as string;
    const owner = references.get(id);
    return { id, placed: owner !== undefined && key === fileKey(owner, { id }) };
  }
  return undefined;
}

export async function auditStorage(
  storage: FileStorage,
  references: ReadonlyMap<string, FileOwner>,
  options: { graceMs: number; now?: Date },
): Promise<StorageAudit> {
  const cutoff = (options.now ?? new Date()).getTime() - options.graceMs;
  const orphans: StoredObject[] = [];
  const unmoved: StorageAudit['unmoved'] = [];
  const held = new Set<string>();
  let objects = 0;
  for await (const object of storage.list('')) {
    objects++;
    const about = fileIdOf(object.key, references);
    // Not a key the service makes: someone else's object in a shared bucket is left alone.
    if (!about) continue;
    const owner = references.get(about.id);
    if (owner && about.placed) held.add(about.id);
    else if (owner && object.key === pendingKey(about.id)) {
      held.add(about.id);
      unmoved.push({ key: object.key, target: fileKey(owner, { id: about.id }) });
    } else if (object.modifiedAt.getTime() <= cutoff) orphans.push(object);
  }
  const missing: StorageAudit['missing'] = [];
  for (const [fileId, owner] of references) if (!held.has(fileId)) missing.push({ ...owner, fileId });
  return { orphans, unmoved, missing, objects };
}

/** Removes the orphans and moves unmoved uploads into place; answers how many objects it changed. */
export async function repairStorage(storage: FileStorage, audit: StorageAudit): Promise<number> {
  let changed = 0;
  for (const object of audit.orphans) {
    await storage.delete(object.key);
    changed++;
  }
  for (const { key, target } of audit.unmoved) {
    // The record's write committed and the download already finds the file here; the move only tidies.
    if ((await storage.head(target)) === undefined) await storage.move(key, target);
    else await storage.delete(key);
    changed++;
  }
  return changed;
}
