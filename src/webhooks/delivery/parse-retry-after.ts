// `Retry-After` (RFC 9110 10.2.3): delay-seconds or an HTTP-date; milliseconds from `now`.

export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Every HTTP-date form starts with a day name; without this Date.parse would take "-5" as a year.
  if (!/^[A-Za-z]{3}/.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(date - now, 0);
}
