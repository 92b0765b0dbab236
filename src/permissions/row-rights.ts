// What a caller may do to each record they read (`meta.can: {update, delete}`), for callers whose update
// or delete rule has a row filter: the filters are compiled once into in-memory predicates (the same
// semantics as their SQL, test/permissions/filter-agreement.test.ts) and run on the rows a read already
// has, so a page costs no query per row. A caller whose rights are the same on every row gets no meta.can:
// /me's `access` says it once.
import type { FilterNode } from '../model/filter-node.ts';
import type { Principal } from '../model/principal.ts';
import type { RecordValues } from '../model/record-values.ts';
import { filterToPredicate, type RecordPredicate } from '../query/filter-to-predicate.ts';
import type { Resource } from '../resources/resource.ts';
import { grantIfAllowed } from './resolve-access.ts';

export interface RecordRights {
  update: boolean;
  delete: boolean;
}

export interface RowRights {
  /** The columns the predicates read: a read selects them even when it does not show them. */
  readonly fields: readonly string[];
  of(record: RecordValues): RecordRights;
}

const NOTHING: FilterNode = { kind: 'constant', value: false };

/** Compiled once per filter: grants (and so their filters) are shared and cached by resolveAccess. */
const PREDICATES = new WeakMap<FilterNode, RecordPredicate>();

/** `filter` as an in-memory predicate, compiled once per filter object. */
export function predicateOf(filter: FilterNode, resource: Resource): RecordPredicate {
  let predicate = PREDICATES.get(filter);
  if (!predicate) {
    predicate = filterToPredicate(filter, resource);
    PREDICATES.set(filter, predicate);
  }
  return predicate;
}

/** The rows the caller may take `action` on; none when the action is refused them outright. */
function actionFilter(resource: Resource, principal: Principal, action: 'update' | 'delete'): FilterNode {
  return grantIfAllowed(resource, principal, action)?.filter ?? NOTHING;
}

function collectFields(node: FilterNode, into: Set<string>): void {
  switch (node.kind) {
    case 'and':
    case 'or':
      for (const child of node.nodes) collectFields(child, into);
      return;
    case 'not':
      collectFields(node.node, into);
      return;
    case 'condition':
      into.add(node.field);
      return;
    case 'constant':
      return;
  }
}

/** The caller's per-row rights on `resource`, or undefined when no row filter decides them. */
export function rowRights(resource: Resource, principal: Principal): RowRights | undefined {
  const update = actionFilter(resource, principal, 'update');
  const remove = actionFilter(resource, principal, 'delete');
  if (update.kind === 'constant' && remove.kind === 'constant') return undefined;
  const fields = new Set<string>();
  collectFields(update, fields);
  collectFields(remove, fields);
  const mayUpdate = predicateOf(update, resource);
  const mayDelete = predicateOf(remove, resource);
  return {
    fields: [...fields],
    of: (record) => ({ update: mayUpdate(record), delete: mayDelete(record) }),
  };
}
