// What a caller may do with one action on one resource, after role rules and key scopes are combined.
import type { FilterNode } from './filter-node.ts';

export interface AccessGrant {
  /** Declared fields the caller may read (read) or write (create/update). */
  readonly fields: ReadonlySet<string>;
  /** Rows the action applies to. */
  readonly filter: FilterNode;
  /** Must hold for the row as written (create/update); null when there is none. */
  readonly check: FilterNode | null;
  /** Values set server-side; callers cannot override them. */
  readonly preset: Readonly<Record<string, unknown>>;
}
