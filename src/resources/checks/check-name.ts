// Resource and field names: they become table and column names, URL segments and query parameters.
import { NAME_PATTERN } from '../../config/config-schema.ts';
import { SYSTEM_FIELDS } from '../../config/config-types.ts';

const NAME = new RegExp(NAME_PATTERN);

/** System columns and list-query parameters: a field of that name would be ambiguous. */
export const RESERVED_FIELD_NAMES: ReadonlySet<string> = new Set([
  ...SYSTEM_FIELDS,
  'deleted_at',
  '_limit',
  '_offset',
  '_sort',
  'fields',
  'events',
  'page',
  'token',
]);

/** Paths under /v1 that are svc's own: a resource of that name could not be reached there. */
export const RESERVED_RESOURCE_NAMES: ReadonlySet<string> = new Set(['operations', 'stream']);

/** Prefix of the service's own tables. */
export const INTERNAL_TABLE_PREFIX = 'svc_';

const SHAPE = `must match ${NAME_PATTERN} (a lowercase letter, then lowercase letters, digits or _; at most 63 characters)`;

/**
 * Names every JavaScript object answers to. Kysely's SQLite schema reader (which the identity
 * component's migrations use) keeps tables in a plain object, so a table named `constructor` stops the
 * start; the rest of svc looks names up in Maps, but a resource name is a table name.
 */
const OBJECT_MEMBER_NAMES: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

export function checkResourceName(name: string): string | undefined {
  if (!NAME.test(name)) return `resource name ${SHAPE}`;
  if (OBJECT_MEMBER_NAMES.has(name))
    return `"${name}" is reserved (a member of every JavaScript object, which a database schema reader svc uses mistakes for a table)`;
  if (name.startsWith(INTERNAL_TABLE_PREFIX))
    return `resource names starting with ${INTERNAL_TABLE_PREFIX} are reserved for internal tables`;
  if (RESERVED_RESOURCE_NAMES.has(name)) return `"${name}" is reserved: /v1/${name} is svc's own endpoint`;
  return undefined;
}

export function checkFieldName(name: string): string | undefined {
  if (RESERVED_FIELD_NAMES.has(name)) return `"${name}" is a reserved name (system field or query parameter)`;
  if (!NAME.test(name)) return `field name ${SHAPE}`;
  return undefined;
}
