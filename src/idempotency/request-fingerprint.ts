// What a request was, as a hash: a retry must send the same request for the stored answer to be its
// answer. JSON objects are compared by their members, not by the order they were written in.
import { createHash } from 'node:crypto';

/** SHA-256 of the parts as canonical JSON (object members sorted by name), hex. */
export function requestFingerprint(parts: readonly unknown[]): string {
  return createHash('sha256').update(canonicalJson(parts)).digest('hex');
}

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value as Record<string, unknown>)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, member]) => `${JSON.stringify(name)}:${canonicalJson(member)}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
