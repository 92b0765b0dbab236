// Whether a field's `default` is a value the field accepts: checked against the field type's own value
// schema with the validator request bodies use, so a default can never fail its own create.
import type { FieldDefinition } from '../../config/config-types.ts';
import { FIELD_TYPES } from '../field-types/index.ts';
import { HTTP_URL_MESSAGE, HTTP_URL_PATTERN } from '../field-types/url-field.ts';
import { compileValueSchema } from '../field-types/value-validator.ts';

/** Why `field.default` is not a value of the field, or undefined when it is (or there is none). */
export function checkFieldDefault(field: FieldDefinition): string | undefined {
  const value = field.default;
  if (value === undefined) return undefined;
  if (value === null) {
    const nullable = field.nullable ?? field.required !== true;
    return nullable ? undefined : 'null is not allowed: the field cannot be null';
  }
  let check;
  try {
    check = compileValueSchema(FIELD_TYPES[field.type].valueSchema(field));
  } catch {
    return undefined; // bounds of the wrong shape: the schema check reports them
  }
  if (check(value)) return undefined;
  const reasons = (check.errors ?? []).map((e) =>
    e.keyword === 'enum'
      ? `must be one of: ${(field.values ?? []).join(', ')}`
      : e.keyword === 'pattern' && e.params.pattern === HTTP_URL_PATTERN
        ? HTTP_URL_MESSAGE
        : (e.message ?? 'is invalid'),
  );
  return `${JSON.stringify(value)} is not a valid ${field.type} value: ${[...new Set(reasons)].join('; ')}`;
}
