// A timestamp already in the form svc stores and sends (what toISOString returns) is kept as it is
// rather than parsed and printed again, which every write pays several times (its own times, its
// event's, its deliveries'). Only a day that its month does not have (Feb 30, Apr 31) takes the slow
// path, where Date rolls it over as it always has. Until 2026-11 days past the 28th all took the slow
// path: on the last days of each month a create with its webhook cost 4 µs more.
const CANONICAL_TIMESTAMP =
  /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;

/** `value` as `new Date(value).toISOString()` gives it, without the round trip when it is that already. */
export function canonicalTimestamp(value: unknown): string {
  if (typeof value === 'string' && CANONICAL_TIMESTAMP.test(value)) {
    const day = value.slice(8, 10);
    if (day <= '28' || Number(day) <= daysInMonth(Number(value.slice(0, 4)), Number(value.slice(5, 7)))) return value;
  }
  return new Date(value as string).toISOString();
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}
