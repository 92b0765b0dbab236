// Rules on a resource's permissions that JSON Schema cannot say: every field a rule names
// (fields lists, filter, check, preset) is a field of that resource, filter values can be of their
// field's type, role names are usable, and session variables are known.
import { linearRegexProblem } from '../../tools/linear-regex.ts';
import { portableRegexProblem } from '../../tools/portable-regex.ts';
import { filterValueProblem } from './check-filter-value.ts';
import { roleNameProblem } from '../../config/role-name.ts';
import { ACTIONS } from '../../config/config-types.ts';
import { joinPath, type ConfigProblem } from '../../config/config-problem.ts';
import { isRecord } from '../../tools/is-record.ts';
import type { FieldDefinition, FieldTypeName } from '../../config/config-types.ts';
import { FIELD_TYPES } from '../field-types/index.ts';
import { FILTER_OPERATORS } from '../../config/config-schema.ts';

// Fields every row has: filters may use them, fields lists and presets may not.
import { SYSTEM_FIELDS } from '../../config/config-types.ts';

export const SESSION_VARIABLES: readonly string[] = ['$userId', '$role'];

/** A string that reads as a session variable (`$userId`); other strings starting with `$` are plain values. */
const VARIABLE_LIKE = /^\$[A-Za-z_][A-Za-z0-9_]*$/;

function unknownField(name: string, resource: string, fieldNames: readonly string[]): string {
  return `unknown field "${name}" (fields of ${resource}: ${fieldNames.join(', ') || 'none'})`;
}

function checkValue(path: string, value: unknown, problems: ConfigProblem[]): void {
  if (typeof value === 'string' && VARIABLE_LIKE.test(value) && !SESSION_VARIABLES.includes(value)) {
    problems.push({ path, message: `unknown session variable ${value} (known: ${SESSION_VARIABLES.join(', ')})` });
  }
}

/** Declared fields by name; a Map so that a field named `constructor` finds only its own definition. */
export type FieldDefinitions = ReadonlyMap<string, Partial<FieldDefinition>>;

const SYSTEM_FIELD_DEFINITIONS: FieldDefinitions = new Map<string, Partial<FieldDefinition>>([
  ['id', { type: 'uuid' }],
  ['created_at', { type: 'datetime' }],
  ['updated_at', { type: 'datetime' }],
]);

function definitionOf(field: string, fields: FieldDefinitions): Partial<FieldDefinition> | undefined {
  return SYSTEM_FIELD_DEFINITIONS.get(field) ?? fields.get(field);
}

/**
 * An operator must make sense for the field's type (e.g. no `like` on a datetime): otherwise SQLite and
 * PostgreSQL would match against different text forms of the value, and the stream's predicate a third.
 */
function operatorProblem(op: string, field: string, fields: FieldDefinitions): string | undefined {
  const typeName = definitionOf(field, fields)?.type;
  const type =
    typeName !== undefined && Object.hasOwn(FIELD_TYPES, typeName) ? FIELD_TYPES[typeName as FieldTypeName] : undefined;
  // Unknown operators are the schema's to report.
  if (!type || !(FILTER_OPERATORS as readonly string[]).includes(op) || type.operators.has(op as never))
    return undefined;
  return `operator ${op} does not apply to ${type.name} field "${field}" (use ${[...type.operators].join(', ')})`;
}

function checkFilter(
  path: string,
  filter: unknown,
  resource: string,
  fieldNames: readonly string[],
  problems: ConfigProblem[],
  fields: FieldDefinitions,
): void {
  if (!isRecord(filter)) return;
  for (const [key, node] of Object.entries(filter)) {
    const at = joinPath(path, key);
    if (key === '_and' || key === '_or') {
      if (Array.isArray(node)) {
        for (const [i, item] of node.entries())
          checkFilter(joinPath(at, i), item, resource, fieldNames, problems, fields);
      }
      continue;
    }
    if (key === '_not') {
      checkFilter(at, node, resource, fieldNames, problems, fields);
      continue;
    }
    if (!fieldNames.includes(key) && !SYSTEM_FIELDS.includes(key)) {
      problems.push({ path: at, message: unknownField(key, resource, fieldNames) });
      continue;
    }
    if (!isRecord(node)) continue;
    for (const [op, value] of Object.entries(node)) {
      const opPath = joinPath(at, op);
      const mismatch = operatorProblem(op, key, fields);
      if (mismatch) problems.push({ path: opPath, message: mismatch });
      if (Array.isArray(value)) {
        for (const [i, item] of value.entries()) checkValue(joinPath(opPath, i), item, problems);
      } else checkValue(opPath, value, problems);
      const definition = definitionOf(key, fields);
      if (!mismatch && definition?.type !== undefined) {
        const typed = definition as FieldDefinition;
        const listed = (op === 'in' || op === 'nin') && Array.isArray(value);
        const values: [string, unknown][] = listed
          ? value.map((item, i) => [joinPath(opPath, i), item])
          : [[opPath, value]];
        for (const [at, item] of values) {
          const problem = filterValueProblem(op, item, typed);
          if (problem) problems.push({ path: at, message: problem });
        }
      }
      if (op === 'regex' && typeof value === 'string' && !VARIABLE_LIKE.test(value)) {
        const problem = linearRegexProblem(value) ?? portableRegexProblem(value);
        if (problem) problems.push({ path: opPath, message: problem });
      }
    }
  }
}

/** Problems of `resources.<resource>.permissions`. */
export function checkPermissions(
  path: string,
  resource: string,
  permissions: unknown,
  fieldNames: readonly string[],
  fields: FieldDefinitions = new Map(),
): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  if (!isRecord(permissions)) return problems;
  for (const [role, actions] of Object.entries(permissions)) {
    const rolePath = joinPath(path, role);
    const roleProblem = role.trim() === '' ? 'role names cannot be empty' : roleNameProblem(role);
    if (roleProblem) problems.push({ path: rolePath, message: roleProblem });
    if (!isRecord(actions)) continue;
    for (const action of ACTIONS) {
      const rule = actions[action];
      if (!isRecord(rule)) continue;
      const rulePath = joinPath(rolePath, action);
      if (Array.isArray(rule.fields)) {
        rule.fields.forEach((name, i) => {
          if (typeof name === 'string' && !fieldNames.includes(name)) {
            problems.push({ path: joinPath(rulePath, 'fields', i), message: unknownField(name, resource, fieldNames) });
          }
        });
      }
      checkFilter(joinPath(rulePath, 'filter'), rule.filter, resource, fieldNames, problems, fields);
      checkFilter(joinPath(rulePath, 'check'), rule.check, resource, fieldNames, problems, fields);
      if (isRecord(rule.preset)) {
        for (const [name, value] of Object.entries(rule.preset)) {
          const at = joinPath(rulePath, 'preset', name);
          if (SYSTEM_FIELDS.includes(name))
            problems.push({ path: at, message: `system field ${name} cannot be preset` });
          else if (!fieldNames.includes(name))
            problems.push({ path: at, message: unknownField(name, resource, fieldNames) });
          else checkValue(at, value, problems);
        }
      }
    }
  }
  return problems;
}
