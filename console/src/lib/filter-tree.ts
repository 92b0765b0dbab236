// The filter builder's AND/OR groups, and how they sit in the console URL: conditions that are all
// ANDed at the top stay `field__op=value` parameters (short links, as before groups existed); anything
// with an OR or a group is written as one `_filter=<JSON>` in the API's grammar
// (`{"_or": [{"status": {"eq": "published"}}, …]}`), which the list, its export and its stream all take.
import { filtersOf, isValueless, type FilterOperators } from './filters.ts';

export interface Condition {
  kind: 'condition';
  field: string;
  op: string;
  /** As typed: a list operator's values comma-separated, nothing for is_null and is_not_null. */
  value: string;
}

export interface Group {
  kind: 'group';
  match: 'and' | 'or';
  items: (Condition | Group)[];
}

/** Groups the builder nests at most (the API allows more, see `server.filterMaxDepth`). */
export const MAX_GROUP_DEPTH = 3;

const LIST_OPERATORS = new Set(['in', 'nin']);

/** The tree a `_filter` value describes, or null when it holds what the builder cannot show (`_not`, bad JSON). */
export function treeOfJson(text: string): Group | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  return groupOf(parsed, 'and');
}

function groupOf(value: unknown, match: 'and' | 'or'): Group | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const items: (Condition | Group)[] = [];
  for (const [key, member] of Object.entries(value as Record<string, unknown>)) {
    if (key === '_and' || key === '_or') {
      if (!Array.isArray(member)) return null;
      const inner: (Condition | Group)[] = [];
      for (const entry of member) {
        const group = groupOf(entry, 'and');
        if (group === null) return null;
        // `{ "title": … }` inside an `_or` is one condition, not a group of one.
        inner.push(group.items.length === 1 ? group.items[0]! : group);
      }
      items.push({ kind: 'group', match: key === '_and' ? 'and' : 'or', items: inner });
      continue;
    }
    if (key.startsWith('_')) return null;
    if (member === null || typeof member !== 'object' || Array.isArray(member)) return null;
    for (const [op, operand] of Object.entries(member as Record<string, unknown>)) {
      const text = Array.isArray(operand)
        ? operand.map(String).join(',')
        : operand === true && (op === 'is_null' || op === 'is_not_null')
          ? ''
          : typeof operand === 'string' || typeof operand === 'number' || typeof operand === 'boolean'
            ? String(operand)
            : null;
      if (text === null) return null;
      items.push({ kind: 'condition', field: key, op, value: text });
    }
  }
  // A group whose only member is a group is that group.
  if (items.length === 1 && items[0]!.kind === 'group') return items[0] as Group;
  return { kind: 'group', match, items };
}

/**
 * The builder's tree from the console URL: the `field__op` parameters and the `_filter`, ANDed as the
 * API ANDs them. Null when the `_filter` holds something the builder cannot show.
 */
export function filterTreeOf(params: URLSearchParams, operators: FilterOperators): Group | null {
  const flat: Condition[] = filtersOf(params, operators).map((f) => ({ kind: 'condition', ...f }));
  const text = params.get('_filter');
  if (text === null) return { kind: 'group', match: 'and', items: flat };
  const tree = treeOfJson(text);
  if (tree === null) return null;
  if (flat.length === 0) return tree;
  return { kind: 'group', match: 'and', items: [...flat, ...(tree.match === 'and' ? tree.items : [tree])] };
}

/** The API's JSON for a group: `{"_and": [...]}` or `{"_or": [...]}`, each condition `{field: {op: value}}`. */
export function filterJsonOf(group: Group, operators: FilterOperators): Record<string, unknown> {
  const items = group.items
    .filter((item) => item.kind === 'group' || item.field !== '')
    .map((item) => (item.kind === 'group' ? filterJsonOf(item, operators) : conditionJson(item, operators)));
  return { [group.match === 'and' ? '_and' : '_or']: items };
}

function conditionJson(condition: Condition, operators: FilterOperators): Record<string, unknown> {
  const { field, op, value } = condition;
  const operand = isValueless(operators, field, op)
    ? true
    : LIST_OPERATORS.has(op)
      ? value.split(',').map((part) => part.trim())
      : value;
  return { [field]: { [op]: operand } };
}

/**
 * Whether the tree is only top-level conditions joined by AND (one condition alone, whatever the match):
 * it can be written as `field__op=` parameters.
 */
export function isFlat(tree: Group): boolean {
  return (tree.match === 'and' || tree.items.length <= 1) && tree.items.every((item) => item.kind === 'condition');
}

/** Drops empty groups and conditions without a field, so what is written is what the builder shows. */
export function pruned(group: Group): Group {
  const items: (Condition | Group)[] = [];
  for (const item of group.items) {
    if (item.kind === 'condition') {
      if (item.field !== '') items.push(item);
      continue;
    }
    const inner = pruned(item);
    if (inner.items.length === 1) items.push(inner.items[0]!);
    else if (inner.items.length > 1) items.push(inner);
  }
  return { ...group, items };
}

/** The console URL with `tree` as its filters: `field__op=` parameters when flat, else `_filter`; paging restarts. */
export function withFilterTree(params: URLSearchParams, tree: Group, operators: FilterOperators): URLSearchParams {
  const next = new URLSearchParams();
  for (const [key, value] of params) if (isListParameter(key)) next.append(key, value);
  next.delete('page[offset]');
  next.delete('_offset');
  const kept = pruned(tree);
  if (isFlat(kept)) {
    for (const item of kept.items) {
      const condition = item as Condition;
      next.append(
        `${condition.field}__${condition.op}`,
        isValueless(operators, condition.field, condition.op) ? '' : condition.value,
      );
    }
  } else {
    next.set('_filter', JSON.stringify(filterJsonOf(kept, operators)));
  }
  return next;
}

/** Parameters that shape the list rather than filter it, kept when the filters change (as withFilters does). */
function isListParameter(key: string): boolean {
  return ['_search', '_sort', '_limit', '_offset', 'page[limit]', 'page[offset]', 'fields'].includes(key);
}

/** How many conditions a tree holds (the filters the "Clear" button would remove). */
export function conditionCount(group: Group): number {
  return group.items.reduce((sum, item) => sum + (item.kind === 'group' ? conditionCount(item) : 1), 0);
}
