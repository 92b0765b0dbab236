// The columns a record statement selects and returns.
import type { Resource } from '../resources/resource.ts';
import { cached } from './weak-cache.ts';

const COLUMNS = new WeakMap<Resource, readonly string[]>();

/**
 * Every column of a resource's rows, named: never `*`, so a statement prepared before a column was
 * added elsewhere still returns what it did (PostgreSQL refuses a cached plan whose result type changed).
 * The same array each time for a resource, so it can key what is shared per column list.
 */
export function columnsOf(resource: Resource): readonly string[] {
  return cached(COLUMNS, resource, () => [
    'id',
    ...resource.fieldNames,
    'created_at',
    'updated_at',
    ...(resource.softDelete ? ['deleted_at'] : []),
  ]);
}
