// A filter after parsing: the one form both compilers (SQL and in-memory) read.
import type { FilterOperator } from '../config/config-types.ts';

export type FilterNode =
  | { kind: 'and'; nodes: FilterNode[] }
  | { kind: 'or'; nodes: FilterNode[] }
  | { kind: 'not'; node: FilterNode }
  /** A condition that is decided without looking at the row (e.g. `$userId` with no user). */
  | { kind: 'constant'; value: boolean }
  | { kind: 'condition'; field: string; op: FilterOperator; value: unknown };

export const MATCH_ALL: FilterNode = { kind: 'constant', value: true };

export function allOf(nodes: (FilterNode | null | undefined)[]): FilterNode {
  const present = nodes.filter((n): n is FilterNode => n != null && !(n.kind === 'constant' && n.value));
  if (present.length === 0) return MATCH_ALL;
  if (present.length === 1) return present[0]!;
  return { kind: 'and', nodes: present };
}
