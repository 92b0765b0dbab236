// Deletes Idempotency-Keys older than `idempotency.ttlMs` (retention job): past it a key is free again.
import type { Store } from '../store/create-store.ts';
import { deleteInBatches } from '../store/delete-in-batches.ts';
import { uuidv7TimeFloor } from '../store/uuid-v7.ts';
import { IDEMPOTENCY_TABLE } from './idempotency-table.ts';

export interface IdempotencyPruneOptions {
  ttlMs: number;
  batchSize: number;
  stopped?: () => boolean;
  onDeleted?: (rows: number) => void;
  now?: number;
}

export function pruneIdempotencyKeys(store: Store, options: IdempotencyPruneOptions): Promise<number> {
  const cutoffMs = (options.now ?? Date.now()) - options.ttlMs;
  const cutoff = new Date(cutoffMs).toISOString();
  // A row's id is made when its key is first used, and created_at only moves forward from there (a
  // key taken over again): an expired row has an id below the cutoff's, so batches read old rows only.
  const below = uuidv7TimeFloor(cutoffMs);
  return deleteInBatches(store.db, {
    table: IDEMPOTENCY_TABLE,
    key: 'id',
    batchSize: options.batchSize,
    skipLocked: store.dialect.supportsSkipLocked,
    ...(options.stopped ? { stopped: options.stopped } : {}),
    ...(options.onDeleted ? { onDeleted: options.onDeleted } : {}),
    where: (eb) => eb.and([eb('id', '<', below), eb('created_at', '<', cutoff)]),
  });
}
