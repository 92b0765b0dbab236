// Content negotiation for JSON:API Atomic Operations (JSON:API 1.1, https://jsonapi.org/ext/atomic/):
// the one extension svc implements, only at POST /v1/operations. A request names it in its
// Content-Type's `ext` parameter; its answers carry it too.
import { JSON_API_MEDIA_TYPE } from '../../tools/media-types.ts';

export const ATOMIC_EXTENSION = 'https://jsonapi.org/ext/atomic';

/** What an answer of POST /v1/operations is labelled with. */
export const ATOMIC_MEDIA_TYPE = `${JSON_API_MEDIA_TYPE}; ext="${ATOMIC_EXTENSION}"`;

/** A media type's parameters as given, names lower-cased (quotes taken off values); undefined when malformed. */
interface MediaRange {
  type: string;
  parameters: Map<string, string>;
}

/** Longest header part read: a media type with its parameters is a few hundred characters at most. */
const MAX_RANGE_LENGTH = 1024;

const PARAMETER = /^\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([!#$%&'*+.^_`|~0-9A-Za-z-]+))\s*$/;

function mediaRange(text: string): MediaRange | undefined {
  if (text.length > MAX_RANGE_LENGTH) return undefined;
  const parts = text.split(';');
  const type = parts[0]!.trim().toLowerCase();
  const parameters = new Map<string, string>();
  for (let i = 1; i < parts.length; i++) {
    if (parts[i]!.trim() === '') continue;
    const match = PARAMETER.exec(parts[i]!);
    if (!match) return undefined;
    const name = match[1]!.toLowerCase();
    if (parameters.has(name)) return undefined;
    parameters.set(name, match[2] !== undefined ? match[2].replace(/\\(.)/g, '$1') : match[3]!);
  }
  return { type, parameters };
}

/** The extension URIs of an `ext` parameter (a space-separated list). */
function extensionsOf(range: MediaRange): string[] {
  const ext = range.parameters.get('ext');
  return ext === undefined ? [] : ext.split(' ').filter((uri) => uri !== '');
}

/**
 * Why a request's Content-Type cannot be taken at POST /v1/operations, or undefined when it is the
 * JSON:API media type with exactly the atomic extension (and perhaps a `profile`, which may be ignored).
 */
export function atomicContentTypeProblem(contentType: string | undefined): string | undefined {
  const expected = `Send the operations as ${ATOMIC_MEDIA_TYPE}`;
  if (contentType === undefined) return expected;
  const range = mediaRange(contentType);
  if (!range || range.type !== JSON_API_MEDIA_TYPE) return expected;
  for (const name of range.parameters.keys()) {
    if (name !== 'ext' && name !== 'profile') return `${expected}; the media type parameter '${name}' is not supported`;
  }
  const extensions = extensionsOf(range);
  const unknown = extensions.find((uri) => uri !== ATOMIC_EXTENSION);
  if (unknown !== undefined)
    return `The extension '${unknown}' is not supported; svc supports only ${ATOMIC_EXTENSION}`;
  return extensions.length === 0 ? expected : undefined;
}

/**
 * Whether a Content-Type is the JSON:API type whose only parameters are `ext` naming extensions svc
 * supports (and `profile`): then the general rule against parameters leaves it to the route.
 */
export function isAtomicContentType(contentType: string): boolean {
  return atomicContentTypeProblem(contentType) === undefined;
}

/**
 * JSON:API 1.1 on Accept: instances of the JSON:API type modified by parameters other than `ext` and
 * `profile` are ignored, and so are those whose `ext` names an extension svc lacks; when the header
 * lists the type and every instance is ignored, the answer is 406. Other types (`*\/*`,
 * `application/json`) are left to the usual rules.
 */
export function acceptsAtomicAnswer(accept: string | undefined): boolean {
  if (accept === undefined) return true;
  let instances = 0;
  for (const entry of accept.split(',', 64)) {
    const range = mediaRange(entry);
    if (range === undefined) continue;
    if (range.type !== JSON_API_MEDIA_TYPE) continue;
    instances++;
    range.parameters.delete('q');
    if ([...range.parameters.keys()].some((name) => name !== 'ext' && name !== 'profile')) continue;
    if (extensionsOf(range).some((uri) => uri !== ATOMIC_EXTENSION)) continue;
    return true;
  }
  return instances === 0;
}
