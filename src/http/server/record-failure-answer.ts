// How the API answers a record operation the database refused (records/record-failure.ts): the status
// and code from the catalogue, and a pointer at the field as a flat body names it (request-document.ts
// moves it to where a JSON:API document put it). The driver's error stays the cause, for the log.
import { ApiError, pointerTo } from '../../errors/api-error.ts';
import type { RecordFailure } from '../../records/record-failure.ts';

export function recordFailureAnswer(failure: RecordFailure): ApiError {
  const cause = { cause: failure.cause };
  switch (failure.kind) {
    case 'unique':
      return failure.field === undefined
        ? new ApiError('CONFLICT', 'A unique value is already taken', cause)
        : new ApiError(
            'CONFLICT',
            { detail: `Another record already has this ${failure.field}`, pointer: pointerTo(failure.field) },
            cause,
          );
    case 'still-referenced':
      return new ApiError('CONFLICT', 'The record is still referenced by other records', cause);
    case 'missing-reference':
      return new ApiError('RELATION_REFERENCE_ERROR', 'A referenced record does not exist', cause);
    case 'unavailable':
      return new ApiError('SERVICE_UNAVAILABLE', 'The database is unavailable', cause);
    case 'failed':
      return new ApiError(failure.code, 'The operation failed', cause);
  }
}
