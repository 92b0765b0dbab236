// The row PostgreSQL gives back for an insert of `encoded`, worked out before it is sent, so that a
// create's event can be written in the same statement as its row (one-statement-writer.ts). Every column
// comes back as it was sent, as the dialect encodes it, except jsonb, which orders object keys its own
// way; timestamps are sent in the canonical ISO form that the decoder gives back, dates are validated as
// YYYY-MM-DD, and numbers go both ways as the same doubles.
import type { ColumnStorage } from '../one-statement-writes.ts';
import { inJsonbOrder } from './jsonb-order.ts';

export function rowAsStored(
  storage: ColumnStorage,
  columns: readonly string[],
  encoded: Record<string, unknown>,
): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const column of columns) {
    const value = encoded[column] ?? null;
    row[column] =
      value !== null && storage.storageOf(column) === 'json' ? inJsonbOrder(JSON.parse(value as string)) : value;
  }
  return row;
}
