// The writes a batch (RecordService.batch) offers: the single writes' own path, inside the batch's one
// transaction. JSON:API Atomic Operations (http/atomic/) and `svc import` write through it.
import type { Resource } from '../resources/resource.ts';
import type { ReadResult, RequestMeta } from './record-results.ts';

/** An upsert's answer: the record, and whether it was created (else updated). */
export interface UpsertResult extends ReadResult {
  created: boolean;
}

export interface WriteBatch {
  create(resource: Resource, meta: RequestMeta, body: unknown, clientId?: string): Promise<ReadResult>;
  /** Create, or update the record whose unique `field` holds the body's value (RecordService.upsert). */
  upsert(resource: Resource, meta: RequestMeta, body: unknown, field: string, clientId?: string): Promise<UpsertResult>;
  update(
    resource: Resource,
    meta: RequestMeta,
    id: string,
    body: unknown,
    mode: 'replace' | 'patch',
  ): Promise<ReadResult>;
  remove(resource: Resource, meta: RequestMeta, id: string): Promise<void>;
}
