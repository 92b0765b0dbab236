// Failures a record write reports before it has changed anything: a target row that is missing or
// forbidden, a reference to no row. Writes sharing a PostgreSQL transaction (postgres-write-groups.ts)
// answer such a failure and go on, since the transaction holds nothing of that write but its reads;
// any other failure rolls the shared transaction back.
const beforeWriting = new WeakSet<object>();

/** Marks `error` as thrown before its write changed anything, and returns it. */
export function failedBeforeWriting<E extends object>(error: E): E {
  beforeWriting.add(error);
  return error;
}

export function hasFailedBeforeWriting(error: unknown): boolean {
  return typeof error === 'object' && error !== null && beforeWriting.has(error);
}
