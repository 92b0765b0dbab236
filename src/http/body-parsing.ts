// Bodies are JSON (`application/json` or `application/vnd.api+json`); anything else is 415.
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors/api-error.ts';
import { findUnstorableText, mayHoldUnstorableText } from './unstorable-text.ts';
import { refuseJsonApiContentTypeParameters } from './json-api-negotiation.ts';

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
      if (c === 0x5c) i++; // backslash: skip the escaped character
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

/** Bodies are flat objects whose members stand for `data.attributes`; anything else stands for `data`. */
export function bodyPointer(body: unknown): string {
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? '/data/attributes' : '/data';
}

export function installBodyParsing(app: FastifyInstance): void {
  app.addHook('preParsing', refuseJsonApiContentTypeParameters);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    ['application/json', 'application/vnd.api+json'],
    { parseAs: 'string' },
    (_request, body, done) => {
      const text = typeof body === 'string' ? body : body.toString('utf8');
      if (text.trim() === '') return done(null, undefined);
      if (jsonDepth(text) > MAX_JSON_DEPTH) {
        return done(new ApiError('INVALID_JSON', `Request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`), undefined);
      }
      let parsed: unknown;
      try {
        // A reviver that drops `__proto__` keeps hostile bodies from reaching object prototypes.
        parsed = JSON.parse(text, (key, value: unknown) => (key === '__proto__' ? undefined : value));
      } catch {
        return done(new ApiError('INVALID_JSON', 'Request body is not valid JSON'), undefined);
      }
      if (mayHoldUnstorableText(text)) {
        const issues = findUnstorableText(parsed, bodyPointer(parsed));
        if (issues.length > 0) return done(new ApiError('INVALID_RESOURCE_DATA', issues), undefined);
      }
      done(null, parsed);
    },
  );
  app.addContentTypeParser('*', (_request, _payload, done) => {
    done(new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json or application/vnd.api+json'), undefined);
  });
}
