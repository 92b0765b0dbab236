// A write's precondition (If-Match), judged inside the write on its target as the write reads it: in
// the transaction that then changes it, after the read that locks it, or on the version a one-statement
// change is made at. So no other write can land between the check and the change (docs/records.md,
// "Conditional requests").
import { ApiError } from '../errors/api-error.ts';
import type { Resource } from '../resources/resource.ts';
import type { RecordValues } from '../model/record-values.ts';

export interface WritePrecondition {
  /**
   * Whether the write may go on, given its target as the caller would be shown it: `record` with the
   * `attributes` they may read; undefined when there is no such record for them.
   */
  holds(record: RecordValues | undefined, attributes: readonly string[]): boolean;
}

export function preconditionFailed(resource: Resource, id: string): ApiError {
  return new ApiError(
    'PRECONDITION_FAILED',
    `If-Match does not match the current ${resource.name}/${id} record: it changed, or is gone, since the tag was issued`,
  );
}

/**
 * Reads a write's target (`read`) and judges `precondition` on it: 412 when it does not hold, also
 * for a target the caller cannot find (If-Match: a missing record matches no tag, nor `*`).
 */
export async function readUnder<T>(
  precondition: WritePrecondition | undefined,
  resource: Resource,
  id: string,
  attributes: readonly string[],
  read: () => Promise<T>,
  recordOf: (target: T) => RecordValues,
): Promise<T> {
  if (!precondition) return read();
  let target: T;
  try {
    target = await read();
  } catch (error) {
    if (error instanceof ApiError && error.code === 'RESOURCE_NOT_FOUND' && !precondition.holds(undefined, attributes))
      throw preconditionFailed(resource, id);
    throw error;
  }
  if (!precondition.holds(recordOf(target), attributes)) throw preconditionFailed(resource, id);
  return target;
}
