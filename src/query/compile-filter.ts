// Parses the filter grammar of resource permissions (`{ field: { op: value } }`, `_and`, `_or`, `_not`)
// into a FilterNode, substituting session variables (`$userId`, `$role`).
import type { FilterDefinition, FilterOperator } from '../config/config-types.ts';
import { FILTER_OPERATORS } from '../config/filter-operators.ts';
import type { Resource } from '../resources/resource.ts';
import type { SessionVariables } from '../model/session-variables.ts';
import { allOf, type FilterNode } from '../model/filter-node.ts';

const OPERATORS = new Set<FilterOperator>(FILTER_OPERATORS);

const COMPARED = new Set<FilterOperator>(['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'in', 'nin']);

const UNRESOLVED = Symbol('unresolved session variable');

function resolveValue(value: unknown, vars: SessionVariables): unknown {
  if (typeof value === 'string' && value.startsWith('$')) {
    const name = value.slice(1);
    if (name === 'userId') return vars.userId ?? UNRESOLVED;
    if (name === 'role') return vars.role;
  }
  return value;
}

function normalizeFor(resource: Resource, field: string, value: unknown): unknown {
  const definition = resource.fields.get(field);
  if (!definition || value === null || typeof value !== 'string') return value;
  return definition.type.normalize(value);
}

export function compileFilter(definition: FilterDefinition, resource: Resource, vars: SessionVariables): FilterNode {
  const nodes: FilterNode[] = [];
  for (const [key, raw] of Object.entries(definition)) {
    if (key === '_and' || key === '_or') {
      const children = (raw as FilterDefinition[]).map((d) => compileFilter(d, resource, vars));
      nodes.push({ kind: key === '_and' ? 'and' : 'or', nodes: children });
      continue;
    }
    if (key === '_not') {
      nodes.push({ kind: 'not', node: compileFilter(raw as FilterDefinition, resource, vars) });
      continue;
    }
    if (!resource.storageOf(key)) throw new Error(`filter names unknown field ${resource.name}.${key}`);
    for (const [op, operand] of Object.entries(raw as Record<string, unknown>)) {
      if (!OPERATORS.has(op as FilterOperator)) throw new Error(`filter uses unknown operator ${op}`);
      const resolved = Array.isArray(operand) ? operand.map((v) => resolveValue(v, vars)) : resolveValue(operand, vars);
      const unresolved = Array.isArray(resolved) ? resolved.includes(UNRESOLVED) : resolved === UNRESOLVED;
      if (unresolved) {
        // A rule that depends on a user cannot hold for a caller without one.
        nodes.push({ kind: 'constant', value: false });
        continue;
      }
      // Only values compared with the column take its canonical form; patterns and needles stay as written.
      const compared = COMPARED.has(op as FilterOperator);
      const normalize = (v: unknown) => (compared ? normalizeFor(resource, key, v) : v);
      const value = Array.isArray(resolved) ? resolved.map(normalize) : normalize(resolved);
      nodes.push({ kind: 'condition', field: key, op: op as FilterOperator, value });
    }
  }
  return allOf(nodes);
}
