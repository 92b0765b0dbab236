// A text that is equal for two filters exactly when they decide every row the same way because they are
// the same tree: lets stream clients of different users share one view when their read filters are equal
// (the same role rule without `$userId`, or the same user).
import type { FilterNode } from '../model/filter-node.ts';

const keys = new WeakMap<FilterNode, string>();
/** Operands that are not plain data are told apart by identity, never by their text. */
const objectIds = new WeakMap<object, number>();
let nextObjectId = 0;

export function filterKey(node: FilterNode): string {
  let key = keys.get(node);
  if (key === undefined) {
    key = nodeKey(node);
    keys.set(node, key);
  }
  return key;
}

function nodeKey(node: FilterNode): string {
  switch (node.kind) {
    case 'constant':
      return node.value ? 'true' : 'false';
    case 'and':
    case 'or':
      return `${node.kind}(${node.nodes.map(nodeKey).join(',')})`;
    case 'not':
      return `not(${nodeKey(node.node)})`;
    case 'condition':
      return `${JSON.stringify(node.field)} ${node.op} ${valueKey(node.value)}`;
  }
}

/** Every operand type gets its own tag, so `1` and `'1'`, or null and undefined, never collide. */
function valueKey(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `[${value.map(valueKey).join(',')}]`;
  switch (typeof value) {
    case 'undefined':
      return 'undefined';
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return `n:${Object.is(value, -0) ? '-0' : String(value)}`;
    case 'boolean':
      return `b:${value}`;
    case 'bigint':
      return `i:${value}`;
    case 'object':
    case 'function': {
      let id = objectIds.get(value);
      if (id === undefined) {
        id = nextObjectId++;
        objectIds.set(value, id);
      }
      return `o:${id}`;
    }
    default:
      // A symbol: never equal to anything else.
      return `o:${nextObjectId++}`;
  }
}
