// A JSON value as PostgreSQL's jsonb gives it back: object keys ordered by their length in UTF-8 bytes,
// then byte by byte (jsonb sorts them so on input). Arrays and scalars are unchanged; a JavaScript
// object has no duplicate keys, the other thing jsonb changes.
const utf8 = new TextEncoder();

function compareKeys(a: string, b: string): number {
  const left = utf8.encode(a);
  const right = utf8.encode(b);
  if (left.length !== right.length) return left.length - right.length;
  for (let i = 0; i < left.length; i++) if (left[i] !== right[i]) return left[i]! - right[i]!;
  return 0;
}

export function inJsonbOrder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(inJsonbOrder);
  if (value === null || typeof value !== 'object') return value;
  const ordered: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort(compareKeys))
    ordered[key] = inJsonbOrder((value as Record<string, unknown>)[key]);
  return ordered;
}
