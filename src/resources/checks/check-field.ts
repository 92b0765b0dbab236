// Rules on one field definition that JSON Schema cannot say: which attributes a type takes,
// relation targets, consistent bounds, a pattern that compiles, a default the field accepts.
import { linearRegexProblem } from '../../tools/linear-regex.ts';
import type { FieldDefinition, FieldTypeName } from '../../config/config-types.ts';
import { FIELD_TYPE_NAMES } from '../../config/config-schema.ts';
import { checkFieldDefault } from './check-field-default.ts';
import { DEFAULT_STRING_MAX_LENGTH } from '../field-types/string-field.ts';
import { FIELD_TYPES } from '../field-types/index.ts';
import { TYPE_SPECIFIC_ATTRIBUTES, type TypeSpecificAttribute } from '../field-types/field-type.ts';
import { checkFieldName } from './check-name.ts';
import { joinPath, type ConfigProblem } from '../../config/config-problem.ts';
import { isRecord } from '../../tools/is-record.ts';

/** The types that take `attribute`, in the registry's order, for a message that names them. */
function typesTaking(attribute: TypeSpecificAttribute): string {
  return Object.values(FIELD_TYPES)
    .filter((type) => type.attributes.has(attribute))
    .map((type) => type.name)
    .join(', ');
}

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
const UNSEARCHABLE_NAMES: ReadonlySet<string> = new Set(['rank', 'rowid']);

export function checkField(
  path: string,
  name: string,
  field: unknown,
  resourceNames: readonly string[],
): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const nameProblem = checkFieldName(name);
  if (nameProblem) problems.push({ path, message: nameProblem });
  if (!isRecord(field) || !isFieldType(field.type)) return problems;
  const type = field.type;
  const at = (attribute: string, message: string): void => {
    problems.push({ path: joinPath(path, attribute), message });
  };

  const fieldType = FIELD_TYPES[type];
  for (const attribute of TYPE_SPECIFIC_ATTRIBUTES) {
    if (field[attribute] !== undefined && !fieldType.attributes.has(attribute)) {
      at(attribute, `${attribute} does not apply to ${type} fields (only ${typesTaking(attribute)})`);
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

  if (type === 'file' || type === 'files') {
    // The value is what an upload made; nothing in a config can name an uploaded file.
    if (field.default !== undefined) at('default', `${type} fields take no default`);
    if (field.unique === true) at('unique', `${type} fields cannot be unique`);
  }

  if (field.sortable === true && !fieldType.sortable) at('sortable', `${type} fields cannot be sortable`);
  // Words are what a search matches: other types hold values (numbers, ids, addresses) a filter compares.
  if (field.searchable === true && type !== 'string' && type !== 'text')
    at('searchable', `only string and text fields can be searchable, not ${type}`);
  // SQLite's full-text index (FTS5) has columns of these names itself; the field could not join it.
  else if (field.searchable === true && UNSEARCHABLE_NAMES.has(name))
    at('searchable', `a field named ${name} cannot be searchable (the full-text index reserves the name)`);

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
  } else if (
    type === 'string' &&
    typeof minLength === 'number' &&
    maxLength === undefined &&
    minLength > DEFAULT_STRING_MAX_LENGTH
  ) {
    at(
      'minLength',
      `minLength (${minLength}) is greater than the default maxLength of string fields (${DEFAULT_STRING_MAX_LENGTH}); set maxLength`,
    );
  }

  // A default cannot be judged against a pattern that does not compile or enum values that are not there.
  const soundDefinition =
    patternOk && (type !== 'enum' || (Array.isArray(field.values) && field.values.every((v) => typeof v === 'string')));
  if (soundDefinition && field.default !== undefined && type !== 'file' && type !== 'files') {
    const reason = checkFieldDefault(field as unknown as FieldDefinition);
    if (reason) at('default', reason);
  }
  return problems;
}
