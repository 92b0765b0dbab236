// The one byte range a `Range` header asks for (RFC 9110 section 14). Several ranges, or a header that is
// not a bytes range, are served as the whole file (which the RFC allows); a range past the end is 416.
import type { ByteRange } from '../../files/storage/file-storage.ts';

const SINGLE = /^bytes=(\d{0,15})-(\d{0,15})$/;

export type RangeRequest = { kind: 'whole' } | { kind: 'part'; range: ByteRange } | { kind: 'unsatisfiable' };

export function byteRangeOf(header: string | undefined, size: number): RangeRequest {
  const parts = header === undefined ? null : SINGLE.exec(header.trim());
  if (!parts || (parts[1] === '' && parts[2] === '')) return { kind: 'whole' };
  const [, first, last] = parts as unknown as [string, string, string];
  if (first === '') {
    // A suffix: the last N bytes.
    const length = Number(last);
    if (length === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'part', range: { start: Math.max(0, size - length), end: size - 1 } };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (start >= size || end < start) return { kind: 'unsatisfiable' };
  return { kind: 'part', range: { start, end } };
}
