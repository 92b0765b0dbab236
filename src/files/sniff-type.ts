// The media type of an upload, from its first bytes (the file-type package): a client's claim is
// believed only for plain text that decodes as UTF-8, and anything unrecognised is octet-stream.
import { fileTypeFromBuffer } from 'file-type';

/** How many leading bytes file-type needs to recognise every format it knows. */
export const SNIFF_BYTES = 4100;

/** Text types a client may name for bytes no signature recognises; none of them runs script when served. */
const PLAIN_TEXT_TYPES: ReadonlySet<string> = new Set(['text/plain', 'text/csv', 'text/markdown', 'application/json']);

function isUtf8Text(sample: Buffer): boolean {
  if (sample.includes(0)) return false;
  try {
    // stream: a multi-byte character cut at the sample's end is not an error.
    new TextDecoder('utf-8', { fatal: true }).decode(sample, { stream: true });
    return true;
  } catch {
    return false;
  }
}

export async function sniffType(sample: Buffer, claimed: string | undefined): Promise<string> {
  const detected = await fileTypeFromBuffer(sample);
  if (detected) return detected.mime;
  const claimedType = (claimed ?? '').split(';')[0]!.trim().toLowerCase();
  if (PLAIN_TEXT_TYPES.has(claimedType) && isUtf8Text(sample)) return claimedType;
  return 'application/octet-stream';
}

/** Whether `type` is one of `accept` (`image/*` takes every image type); no list takes every type. */
export function isAccepted(type: string, accept: readonly string[] | undefined): boolean {
  if (accept === undefined) return true;
  return accept.some((pattern) => (pattern.endsWith('/*') ? type.startsWith(pattern.slice(0, -1)) : pattern === type));
}
