// A database driver's error as the API answers it: a taken unique value or a missing reference is the
// caller's (409, 400), an unreachable database 503, anything else the operation's own 500.
import { ApiError, pointerTo } from '../errors/api-error.ts';
import type { ErrorCode } from '../errors/error-catalogue.ts';
import type { StoreDialect } from './store-dialect.ts';

/** `code`: the operation's error; a foreign key refusing a delete is a conflict, refusing a write a bad reference. */
export function mapDriverError(dialect: StoreDialect, error: unknown, code: ErrorCode): ApiError {
  if (dialect.isUniqueViolation(error)) {
    const message = `${(error as Error).message} ${(error as { constraint?: string }).constraint ?? ''}`;
    const field = /(?:uq_[a-z0-9_]+?_|\.)([a-z][a-z0-9_]*)\b/.exec(message)?.[1];
    return new ApiError('CONFLICT', field ? { detail: `Another record already has this ${field}`, pointer: pointerTo(field) } : 'A unique value is already taken', { cause: error });
  }
  if (dialect.isForeignKeyViolation(error)) {
    return code === 'RESOURCE_DELETE_ERROR'
      ? new ApiError('CONFLICT', 'The record is still referenced by other records', { cause: error })
      : new ApiError('RELATION_REFERENCE_ERROR', 'A referenced record does not exist', { cause: error });
  }
  if (dialect.isConnectionError(error)) return new ApiError('SERVICE_UNAVAILABLE', 'The database is unavailable', { cause: error });
  return new ApiError(code, 'The operation failed', { cause: error });
}
