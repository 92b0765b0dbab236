// The one type guard the config checks need: a parsed value is a plain object (not null, not a list).

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
