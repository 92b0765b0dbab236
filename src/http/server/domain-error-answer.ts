// How the API answers what the domain refused. A database refusal (records/record-failure.ts) gets its
// status and code from the catalogue; an issue about a record field (`field`, the domain's name for it)
// gets a pointer at the field as a flat body names it, `/data/attributes/<field>` (request-document.ts
// moves it to where a JSON:API document put it; atomic operations prefix their operation). The driver's
// error stays the cause, for the log.
import { ApiError, type ErrorIssue } from '../../errors/api-error.ts';
import { RecordFailure } from '../../records/record-failure.ts';
import { isOwnFailure, markOwnFailure } from '../../store/own-failure.ts';

/** Where a record field sits in a request body: the JSON:API resource object's attribute. */
export const attributePointer = (field: string): string => `/data/attributes/${field}`;

export function recordFailureAnswer(failure: RecordFailure): ApiError {
  const cause = { cause: failure.cause };
  switch (failure.kind) {
    case 'unique':
      return failure.field === undefined
        ? new ApiError('CONFLICT', 'A unique value is already taken', cause)
        : new ApiError(
            'CONFLICT',
            { detail: `Another record already has this ${failure.field}`, pointer: attributePointer(failure.field) },
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

const unplaced = (issue: ErrorIssue): boolean => issue.field !== undefined && issue.pointer === undefined;

/** What the domain threw, as the API answers it: database refusals answered, field issues given pointers. */
export function domainErrorAnswer(thrown: unknown): unknown {
  if (thrown instanceof RecordFailure) return recordFailureAnswer(thrown);
  if (!(thrown instanceof ApiError) || !thrown.issues.some(unplaced)) return thrown;
  const placed = thrown.withIssues(
    thrown.issues.map((issue) => (unplaced(issue) ? { ...issue, pointer: attributePointer(issue.field!) } : issue)),
  );
  // A write's own failure stays marked as such (a group commit does not run the others again for it).
  return isOwnFailure(thrown) ? markOwnFailure(placed) : placed;
}
