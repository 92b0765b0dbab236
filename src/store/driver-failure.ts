// A database driver's error in the store's own terms: a unique value already taken (with the field when
// the constraint names one), a reference a foreign key refused, a database out of reach, or anything
// else. What a caller is told about each is decided above the store (records/, then http/).
import type { StoreDialect } from './store-dialect.ts';

export type DriverFailure =
  | { readonly kind: 'unique'; readonly field: string | undefined }
  | { readonly kind: 'reference' }
  | { readonly kind: 'unavailable' }
  | { readonly kind: 'other' };

export function classifyDriverError(dialect: StoreDialect, error: unknown): DriverFailure {
  if (dialect.isUniqueViolation(error)) {
    // Unique indexes are named uq_<table>_<field>; SQLite names the column (`<table>.<field>`) instead.
    const message = `${(error as Error).message} ${(error as { constraint?: string }).constraint ?? ''}`;
    return { kind: 'unique', field: /(?:uq_[a-z0-9_]+?_|\.)([a-z][a-z0-9_]*)\b/.exec(message)?.[1] };
  }
  if (dialect.isForeignKeyViolation(error)) return { kind: 'reference' };
  if (dialect.isConnectionError(error)) return { kind: 'unavailable' };
  return { kind: 'other' };
}
