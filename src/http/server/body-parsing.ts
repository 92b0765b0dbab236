// Bodies are JSON (`application/json` or `application/vnd.api+json`); anything else is 415.
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../errors/api-error.ts';
import { findUnstorableText, mayHoldUnstorableText } from './unstorable-text.ts';
import { refuseJsonApiContentTypeParameters } from '../documents/json-api-negotiation.ts';
import { JSON_API_MEDIA_TYPE } from '../../tools/media-types.ts';
import { isRecord } from '../../tools/is-record.ts';

/**
 * Deeper bodies are refused before parsing: JSON.parse with a reviver, validation, JSON.stringify and
 * deep comparison all recurse, and a few thousand levels (well inside the body limit) overflow the stack.
 */
export const MAX_JSON_DEPTH = 256;

/** Deepest `[`/`{` nesting of a JSON text, counting only brackets outside strings; stops past `limit`. */
export function jsonDepth(text: string, limit = MAX_JSON_DEPTH): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/**
 * Where a body's members are pointed at. Flat objects stand for `data.attributes`, anything else for
 * `data`; a JSON:API document (vnd.api+json, `data` an object with `type`: request-document.ts) is
 * pointed into as it is, from its root. Parsing does not know the resource, so this is the document
 * test without the resource's part.
 */
export function bodyPointer(body: unknown, contentType = 'application/json'): string {
  if (contentType === JSON_API_MEDIA_TYPE && isRecord(body) && isRecord(body.data) && Object.hasOwn(body.data, 'type'))
    return '';
  return isRecord(body) ? '/data/attributes' : '/data';
}

/** Pointer to the first `__proto__` member, as `/data/attributes/<path>` like other body problems. */
function protoPointer(root: unknown, rootPointer: string): string {
  const escapeToken = (token: string) => token.replace(/~/g, '~0').replace(/\//g, '~1');
  const find = (node: unknown, path: string): string | undefined => {
    if (node === null || typeof node !== 'object') return undefined;
    for (const [key, child] of Object.entries(node)) {
      const at = `${path}/${escapeToken(key)}`;
      if (key === '__proto__') return at;
      const deeper = find(child, at);
      if (deeper !== undefined) return deeper;
    }
    return undefined;
  };
  return find(root, rootPointer) ?? '/data';
}

export function installBodyParsing(app: FastifyInstance): void {
  app.addHook('preParsing', refuseJsonApiContentTypeParameters);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(['application/json', JSON_API_MEDIA_TYPE], { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    if (jsonDepth(text) > MAX_JSON_DEPTH) {
      return done(
        new ApiError('INVALID_JSON', `Request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`),
        undefined,
      );
    }
    let parsed: unknown;
    let sawProto = false;
    try {
      // JSON.parse makes a `__proto__` member an ordinary own property (no prototype changes here), but
      // a later assignment would drop or misread it: such bodies are refused, with a pointer, rather
      // than silently losing the member (a webhook header, a key scope, a field the resource lacks).
      parsed = JSON.parse(text, (key, value: unknown) => {
        if (key === '__proto__') sawProto = true;
        return value;
      });
    } catch {
      return done(new ApiError('INVALID_JSON', 'Request body is not valid JSON'), undefined);
    }
    const contentType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (sawProto) {
      const rootPointer = isRecord(parsed) ? bodyPointer(parsed, contentType) : '/data/attributes';
      return done(
        new ApiError('INVALID_RESOURCE_DATA', {
          detail: 'A member named __proto__ is not accepted',
          pointer: protoPointer(parsed, rootPointer),
        }),
        undefined,
      );
    }
    if (mayHoldUnstorableText(text)) {
      const issues = findUnstorableText(parsed, bodyPointer(parsed, contentType));
      if (issues.length > 0) return done(new ApiError('INVALID_RESOURCE_DATA', issues), undefined);
    }
    done(null, parsed);
  });
  app.addContentTypeParser('*', (_request, _payload, done) => {
    done(
      new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json or application/vnd.api+json'),
      undefined,
    );
  });
}
