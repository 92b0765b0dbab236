// A timestamp already in the form svc stores and sends (what toISOString returns) is kept as it is
// rather than parsed and printed again, which every write pays several times (its own times, its
// event's, its deliveries'). Days past the 28th take the slow path, where Date rolls an impossible
// date (Feb 30) over as it always has.
const CANONICAL_TIMESTAMP = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|1\d|2[0-8])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;

/** `value` as `new Date(value).toISOString()` gives it, without the round trip when it is that already. */
export function canonicalTimestamp(value: unknown): string {
  return typeof value === 'string' && CANONICAL_TIMESTAMP.test(value) ? value : new Date(value as string).toISOString();
}
