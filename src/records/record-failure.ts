// A record operation the database refused, in the domain's terms: which rule (a unique value taken, a
// reference missing, a record still referenced, the database out of reach, or the operation failing),
// the field when there is one, and the catalogue code that names it. It holds no status and no pointer:
// http/ decides how the request sees it (the field sent as an attribute, or as a relationship).
import type { ErrorCode } from '../errors/error-catalogue.ts';
import type { DriverFailure } from '../store/driver-failure.ts';

export type RecordFailureKind = 'unique' | 'missing-reference' | 'still-referenced' | 'unavailable' | 'failed';

export class RecordFailure extends Error {
  readonly kind: RecordFailureKind;
  /** The field whose unique value is taken, when the database named it. */
  readonly field: string | undefined;
  readonly code: ErrorCode;

  constructor(kind: RecordFailureKind, code: ErrorCode, field: string | undefined, cause: unknown) {
    super(field === undefined ? `record ${kind}` : `record ${kind}: ${field}`, { cause });
    this.name = 'RecordFailure';
    this.kind = kind;
    this.code = code;
    this.field = field;
  }
}

/** `operation`: the operation's own code; a foreign key refusing a delete is a conflict, refusing a write a bad reference. */
export function recordFailureOf(failure: DriverFailure, operation: ErrorCode, cause: unknown): RecordFailure {
  switch (failure.kind) {
    case 'unique':
      return new RecordFailure('unique', 'CONFLICT', failure.field, cause);
    case 'reference':
      return operation === 'RESOURCE_DELETE_ERROR'
        ? new RecordFailure('still-referenced', 'CONFLICT', undefined, cause)
        : new RecordFailure('missing-reference', 'RELATION_REFERENCE_ERROR', undefined, cause);
    case 'unavailable':
      return new RecordFailure('unavailable', 'SERVICE_UNAVAILABLE', undefined, cause);
    case 'other':
      return new RecordFailure('failed', operation, undefined, cause);
  }
}
