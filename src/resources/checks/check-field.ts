// Rules on one field definition that JSON Schema cannot say: which attributes a type takes,
// relation targets, consistent bounds, a pattern that compiles, a default the field accepts.
import { linearRegexProblem } from '../../store/linear-regex.ts';
import type { FieldDefinition, FieldTypeName } from '../../config/config-types.ts';
import { FIELD_TYPE_NAMES } from '../../config/config-schema.ts';
import { checkFieldDefault } from './check-field-default.ts';
import { DEFAULT_STRING_MAX_LENGTH } from '../field-types/string-field.ts';
import { checkFieldName } from './check-name.ts';
import { joinPath, type ConfigProblem } from '../../config/config-problem.ts';
import { isRecord } from '../../tools/is-record.ts';

const LENGTH_TYPES: ReadonlySet<FieldTypeName> = new Set(['string', 'text', 'email', 'url']);
const NUMERIC_TYPES: ReadonlySet<FieldTypeName> = new Set(['integer', 'number']);

/** Attributes that only some types take; any other attribute applies to every type. */
const ATTRIBUTE_TYPES: Readonly<Record<string, ReadonlySet<FieldTypeName>>> = {
  minLength: LENGTH_TYPES,
  maxLength: LENGTH_TYPES,
  pattern: LENGTH_TYPES,
  minimum: NUMERIC_TYPES,
  maximum: NUMERIC_TYPES,
  values: new Set(['enum']),
  resource: new Set(['relation']),
  onDelete: new Set(['relation']),
};

function isFieldType(value: unknown): value is FieldTypeName {
  return (FIELD_TYPE_NAMES as readonly unknown[]).includes(value);
}

function compiles(pattern: string): string | undefined {
  // The engine the resource validators use (RE2: linear time, no backreferences or lookaround).
  return linearRegexProblem(pattern) ?? undefined;
}

/**
 * Problems of `resources.<resource>.fields.<name>`. `resourceNames` are every configured resource,
 * for relation targets. Shapes the schema already refuses (a string where a number goes) are skipped.
 */
export function checkField(path: string, name: string, field: unknown, resourceNames: readonly string[]): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const nameProblem = checkFieldName(name);
  if (nameProblem) problems.push({ path, message: nameProblem });
  if (!isRecord(field) || !isFieldType(field.type)) return problems;
  const type = field.type;
  const at = (attribute: string, message: string): void => {
    problems.push({ path: joinPath(path, attribute), message });
  };

  for (const [attribute, types] of Object.entries(ATTRIBUTE_TYPES)) {
    if (field[attribute] !== undefined && !types.has(type)) {
      at(attribute, `${attribute} does not apply to ${type} fields (only ${[...types].join(', ')})`);
    }
  }

  if (type === 'enum' && field.values === undefined) at('values', 'enum fields need a non-empty values list');

  if (type === 'relation') {
    if (field.resource === undefined) {
      at('resource', 'relation fields need resource: the name of the target resource');
    } else if (typeof field.resource === 'string' && !resourceNames.includes(field.resource)) {
      at('resource', `unknown resource "${field.resource}" (resources: ${resourceNames.join(', ')})`);
    }
    if (field.onDelete === 'set_null' && (field.required === true || field.nullable === false)) {
      at('onDelete', 'set_null needs a field that may be null (not required, not nullable: false)');
    }
  }

  if (field.sortable === true && type === 'json') at('sortable', 'json fields cannot be sortable');

  let patternOk = true;
  if (typeof field.pattern === 'string') {
    const reason = compiles(field.pattern);
    if (reason) {
      patternOk = false;
      at('pattern', reason);
    }
  }

  const { minimum, maximum, minLength, maxLength } = field;
  if (typeof minimum === 'number' && typeof maximum === 'number' && minimum > maximum) {
    at('minimum', `minimum (${minimum}) is greater than maximum (${maximum})`);
  }
  if (typeof minLength === 'number' && typeof maxLength === 'number' && minLength > maxLength) {
    at('minLength', `minLength (${minLength}) is greater than maxLength (${maxLength})`);
  } else if (type === 'string' && typeof minLength === 'number' && maxLength === undefined && minLength > DEFAULT_STRING_MAX_LENGTH) {
    at('minLength', `minLength (${minLength}) is greater than the default maxLength of string fields (${DEFAULT_STRING_MAX_LENGTH}); set maxLength`);
  }

  // A default cannot be judged against a pattern that does not compile or enum values that are not there.
  const soundDefinition =
    patternOk && (type !== 'enum' || (Array.isArray(field.values) && field.values.every((v) => typeof v === 'string')));
  if (soundDefinition && field.default !== undefined) {
    const reason = checkFieldDefault(field as unknown as FieldDefinition);
    if (reason) at('default', reason);
  }
  return problems;
}
