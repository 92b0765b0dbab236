// Several removes as one JSON:API Atomic Operations request (POST /v1/operations): the server deletes
// all of them in one transaction, or none, and names the refused operation in each error's pointer.
import { call, ApiFailure, errorText } from './api.ts';

export const ATOMIC_MEDIA_TYPE = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';

const OPERATION_POINTER = /^\/atomic:operations\/(\d+)(?:\/|$)/;

/** What the server said of the request: per operation index, and what names no operation. */
export interface Refusals {
  byOperation: Map<number, string[]>;
  general: string[];
}

export async function removeTogether(type: string, ids: readonly string[]): Promise<void> {
  await call('/v1/operations', {
    method: 'POST',
    contentType: ATOMIC_MEDIA_TYPE,
    body: { 'atomic:operations': ids.map((id) => ({ op: 'remove', ref: { type, id } })) },
  });
}

/** Sorts a failed request's errors by the operation their `source.pointer` names. */
export function refusalsOf(failure: unknown, operations: number): Refusals {
  const refusals: Refusals = { byOperation: new Map(), general: [] };
  if (!(failure instanceof ApiFailure)) {
    refusals.general.push(errorText(failure));
    return refusals;
  }
  for (const error of failure.errors) {
    const message = error.detail ?? error.title ?? error.code ?? `HTTP ${failure.status}`;
    const match = OPERATION_POINTER.exec(error.source?.pointer ?? '');
    const index = match ? Number(match[1]) : -1;
    if (index < 0 || index >= operations) {
      refusals.general.push(message);
      continue;
    }
    const list = refusals.byOperation.get(index) ?? [];
    list.push(message);
    refusals.byOperation.set(index, list);
  }
  if (refusals.general.length === 0 && refusals.byOperation.size === 0) refusals.general.push(failure.message);
  return refusals;
}
