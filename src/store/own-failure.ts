// A write's failure that is its own, whatever the other writes of its SQLite group did (a hook refused
// it, failed or ran out of time): group-commit.ts rejects it at once instead of running its work again
// after rolling the group back, so a slow hook is not waited for twice.
const OWN = new WeakSet<object>();

/** Marks `error` as the failure of its own write alone; answers it, for `throw markOwnFailure(…)`. */
export function markOwnFailure<E extends object>(error: E): E {
  OWN.add(error);
  return error;
}

export function isOwnFailure(error: unknown): boolean {
  return typeof error === 'object' && error !== null && OWN.has(error);
}
