// What a record operation answers when the database fails it: its own ApiError as it is, a driver's
// error as the API answers it (store/map-driver-error.ts).
import { ApiError } from '../errors/api-error.ts';
import type { ErrorCode } from '../errors/error-catalogue.ts';
import { mapDriverError } from '../store/map-driver-error.ts';
import type { StoreDialect } from '../store/store-dialect.ts';
import { KeyAnswered } from '../idempotency/key-answered.ts';

/** A one-statement write whose conditions failed (a reference missing, the row changed since read): nothing was written. */
export class NotApplied extends Error {}

export async function guard<T>(dialect: StoreDialect, code: ErrorCode, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    // KeyAnswered: the write was abandoned for an Idempotency-Key's kept answer, which the caller replays.
    throw error instanceof ApiError || error instanceof NotApplied || error instanceof KeyAnswered ? error : mapDriverError(dialect, error, code);
  }
}
