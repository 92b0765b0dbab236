// A parsed value is a plain object (not null, not a list): the one such guard in the tree.

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
