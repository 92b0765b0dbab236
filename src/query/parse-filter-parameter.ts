// The `_filter` parameter: a JSON filter tree in the grammar of permission filters (`{ field: { op: value } }`,
// `_and`, `_or`, `_not`, `$userId`, `$role`), checked against the resource, the caller's readable fields
// and the filter limits, and answered as a FilterNode. Lists, related lists and streams all read it here.
// Every problem names `_filter` and the JSON Pointer of the offending member (`meta.pointer`).
import type { FilterOperator } from '../config/config-types.ts';
import { FILTER_OPERATORS } from '../config/filter-operators.ts';
import { ApiError, type ErrorIssue } from '../errors/api-error.ts';
import type { Resource } from '../resources/resource.ts';
import type { FieldType } from '../resources/field-types/index.ts';
import { filterValueProblem } from '../resources/checks/check-filter-value.ts';
import { allOf, type FilterNode } from '../model/filter-node.ts';
import type { SessionVariables } from '../model/session-variables.ts';
import { isRecord } from '../tools/is-record.ts';
import { linearRegexProblem } from '../tools/linear-regex.ts';
import { portableRegexProblem } from '../tools/portable-regex.ts';
import type { FilterLimits } from './filter-limits.ts';
import { likePatternProblem, type LikePatternLimits } from './like-pattern-limits.ts';
import { systemFieldType } from './system-field-types.ts';

export const FILTER_PARAMETER = '_filter';

const OPERATORS: ReadonlySet<string> = new Set(FILTER_OPERATORS);
const COMPARED: ReadonlySet<string> = new Set<FilterOperator>(['eq', 'neq', 'lt', 'lte', 'gt', 'gte']);
const LISTS: ReadonlySet<string> = new Set<FilterOperator>(['in', 'nin']);
const PATTERNS: ReadonlySet<string> = new Set<FilterOperator>(['like', 'ilike', 'regex', 'contains']);

/** Issues reported for one `_filter` before giving up: a hostile tree is not walked to its end. */
const MAX_ISSUES = 20;

export interface FilterParameterContext {
  readable: ReadonlySet<string>;
  vars: SessionVariables;
  limits: FilterLimits;
  likeLimits: LikePatternLimits;
}

const escapePointer = (token: string) => token.replaceAll('~', '~0').replaceAll('/', '~1');

class Stop extends Error {}

/** The filter tree `text` describes; throws ApiError (400) naming every problem found. */
export function parseFilterParameter(text: string, resource: Resource, context: FilterParameterContext): FilterNode {
  const issues: ErrorIssue[] = [];
  const fail = (
    pointer: string,
    detail: string,
    code: 'INVALID_QUERY_PARAMS' | 'INVALID_FIELDS' = 'INVALID_QUERY_PARAMS',
  ): void => {
    issues.push({ parameter: FILTER_PARAMETER, valuePointer: pointer, detail, code });
    if (issues.length >= MAX_ISSUES) throw new Stop();
  };
  const { limits } = context;
  // Bracket depth is checked before parsing: a deep array in a value would otherwise be parsed and walked.
  const nesting = maxNesting(text);
  // A condition sits two levels below its group (`{ field: { op: … } }`) and `in` lists one more.
  if (nesting > limits.maxDepth * 2 + 2) {
    throw new ApiError('INVALID_QUERY_PARAMS', {
      parameter: FILTER_PARAMETER,
      valuePointer: '',
      detail: `_filter nests deeper than ${limits.maxDepth} levels of _and, _or and _not`,
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ApiError('INVALID_QUERY_PARAMS', {
      parameter: FILTER_PARAMETER,
      valuePointer: '',
      detail: `_filter is not valid JSON: ${(error as Error).message}`,
    });
  }

  let conditions = 0;
  let listValues = 0;

  const group = (value: unknown, at: string, depth: number): FilterNode => {
    if (!isRecord(value)) {
      fail(at, 'A filter must be a JSON object');
      return allOf([]);
    }
    if (depth > limits.maxDepth) {
      fail(at, `_filter nests deeper than ${limits.maxDepth} levels of _and, _or and _not`);
      return allOf([]);
    }
    const nodes: FilterNode[] = [];
    for (const key of Object.keys(value)) {
      const member = value[key];
      const here = `${at}/${escapePointer(key)}`;
      if (key === '_and' || key === '_or') {
        if (!Array.isArray(member)) {
          fail(here, `${key} takes a list of filters`);
          continue;
        }
        const children = member.map((child, i) => group(child, `${here}/${i}`, depth + 1));
        nodes.push({ kind: key === '_and' ? 'and' : 'or', nodes: children });
      } else if (key === '_not') {
        nodes.push({ kind: 'not', node: group(member, here, depth + 1) });
      } else {
        nodes.push(...fieldConditions(key, member, here));
      }
    }
    return allOf(nodes);
  };

  const fieldConditions = (field: string, member: unknown, at: string): FilterNode[] => {
    // A Map lookup and a fixed list: `__proto__` or `constructor` never find Object's members.
    const type: FieldType | undefined = systemFieldType(field) ?? resource.fields.get(field)?.type;
    if (!type) {
      fail(at, `Unknown filter field '${field}'`);
      return [];
    }
    if (!systemFieldType(field) && !context.readable.has(field)) {
      fail(at, `Field '${field}' is not readable`, 'INVALID_FIELDS');
      return [];
    }
    if (!isRecord(member) || Object.keys(member).length === 0) {
      fail(at, `Field '${field}' takes an object of operators, e.g. {"eq": value}`);
      return [];
    }
    const definition = resource.fields.get(field)?.definition ?? { type: type.name };
    const nodes: FilterNode[] = [];
    for (const op of Object.keys(member)) {
      const here = `${at}/${escapePointer(op)}`;
      if (++conditions > limits.maxConditions) {
        fail(here, `_filter may hold at most ${limits.maxConditions} conditions`);
        throw new Stop();
      }
      if (!OPERATORS.has(op)) {
        fail(here, `Unknown operator '${op}'`);
        continue;
      }
      const operator = op as FilterOperator;
      if (!type.operators.has(operator)) {
        fail(here, `Operator '${op}' does not apply to ${type.name} field '${field}'`);
        continue;
      }
      const operand = member[op];
      if (operator === 'is_null' || operator === 'is_not_null') {
        if (operand !== true) fail(here, `Operator '${op}' takes true`);
        else nodes.push({ kind: 'condition', field, op: operator, value: null });
        continue;
      }
      if (PATTERNS.has(operator)) {
        const problem = patternProblem(operator, operand, type, context.likeLimits);
        if (problem) fail(here, problem);
        else nodes.push({ kind: 'condition', field, op: operator, value: operand });
        continue;
      }
      if (LISTS.has(operator)) {
        if (!Array.isArray(operand)) {
          fail(here, `Operator '${op}' takes a list of values`);
          continue;
        }
        listValues += operand.length;
        if (listValues > limits.maxInValues) {
          fail(here, `_filter may hold at most ${limits.maxInValues} in/nin values, all lists together`);
          throw new Stop();
        }
        const values: unknown[] = [];
        let unresolved = false;
        operand.forEach((item, i) => {
          const value = comparedValue(item, type, definition, `${here}/${i}`);
          if (value === UNRESOLVED) unresolved = true;
          else values.push(value);
        });
        // `$userId` without a user stands for no value: `in` loses it, `nin` can hold for nobody (SQL's null).
        if (unresolved && operator === 'nin') nodes.push({ kind: 'constant', value: false });
        else nodes.push({ kind: 'condition', field, op: operator, value: values });
        continue;
      }
      if (COMPARED.has(operator)) {
        const value = comparedValue(operand, type, definition, here);
        if (value === UNRESOLVED) nodes.push({ kind: 'constant', value: false });
        else if (value !== INVALID) nodes.push({ kind: 'condition', field, op: operator, value });
      }
    }
    return nodes;
  };

  const comparedValue = (
    value: unknown,
    type: FieldType,
    definition: Parameters<FieldType['parse']>[1],
    at: string,
  ): unknown => {
    if (value === null) return null;
    if (value === '$userId') return context.vars.userId ?? UNRESOLVED;
    if (value === '$role') return context.vars.role;
    const problem = filterValueProblem('eq', value, definition);
    if (problem) {
      fail(at, `Invalid value: ${problem}`);
      return INVALID;
    }
    if (typeof value !== 'string') return value;
    try {
      return type.parse(value, definition);
    } catch (error) {
      fail(at, `Invalid value: ${(error as Error).message}`);
      return INVALID;
    }
  };

  let node: FilterNode = allOf([]);
  try {
    node = group(parsed, '', 1);
  } catch (error) {
    if (!(error instanceof Stop)) throw error;
  }
  if (issues.length > 0) {
    const code = issues.some((i) => i.code === 'INVALID_QUERY_PARAMS') ? 'INVALID_QUERY_PARAMS' : 'INVALID_FIELDS';
    throw new ApiError(code, issues);
  }
  return node;
}

const UNRESOLVED = Symbol('no user for $userId');
const INVALID = Symbol('invalid value');

/** Why a pattern, regex or needle is refused, or null. */
function patternProblem(
  op: FilterOperator,
  operand: unknown,
  type: FieldType,
  likeLimits: LikePatternLimits,
): string | null {
  if (op === 'contains' && type.storage === 'json') {
    // Element containment of a json array: one scalar element.
    return operand === null || isRecord(operand) || Array.isArray(operand)
      ? `Operator 'contains' on a json field takes a string, number or boolean`
      : null;
  }
  if (typeof operand !== 'string') return `Operator '${op}' takes a string`;
  if (op === 'like' || op === 'ilike') return likePatternProblem(operand, likeLimits);
  // Needles and regexes are held to the like pattern's length: each costs text × pattern per row.
  if ([...operand].length > likeLimits.maxLength)
    return `'${op}' values may be at most ${likeLimits.maxLength} characters long`;
  if (op === 'regex') return linearRegexProblem(operand) ?? portableRegexProblem(operand);
  return null;
}

/** The deepest nesting of `[` and `{` outside strings; stops counting strings' contents. */
function maxNesting(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}
