// Whether every row one filter admits is admitted by another, decided from the two trees alone. Only
// rules that are always sound are used (equal trees, and how and/or/constants combine), so a `true`
// answer is a proof; anything the rules cannot show answers `false`, which callers treat as "maybe
// not" (a stream whose row filter changed that way is ended rather than trusted).
import { isDeepStrictEqual } from 'node:util';
import type { FilterNode } from './filter-node.ts';

/** True when every row that `stronger` admits is also admitted by `weaker`. */
export function filterImplies(stronger: FilterNode, weaker: FilterNode): boolean {
  if (weaker.kind === 'constant' && weaker.value) return true;
  if (stronger.kind === 'constant' && !stronger.value) return true;
  if (isDeepStrictEqual(stronger, weaker)) return true;
  // A ⇒ (B ∧ C) when A ⇒ B and A ⇒ C; (A ∨ B) ⇒ C when A ⇒ C and B ⇒ C.
  if (weaker.kind === 'and' && weaker.nodes.every((node) => filterImplies(stronger, node))) return true;
  if (stronger.kind === 'or' && stronger.nodes.every((node) => filterImplies(node, weaker))) return true;
  // A ⇒ (B ∨ C) when A ⇒ B; (A ∧ B) ⇒ C when A ⇒ C.
  if (weaker.kind === 'or' && weaker.nodes.some((node) => filterImplies(stronger, node))) return true;
  if (stronger.kind === 'and' && stronger.nodes.some((node) => filterImplies(node, weaker))) return true;
  return false;
}
