// JSON:API 1.0 content negotiation: the JSON:API media type may not carry media type parameters. In
// Content-Type that is 415; in Accept, when every instance of the type carries some, 406.
// Both are preParsing hooks: after authentication and authorization, before the body is read.
import type { FastifyReply, FastifyRequest, RequestPayload } from 'fastify';
import { ApiError } from '../../errors/api-error.ts';
import { JSON_API_MEDIA_TYPE } from './json-api.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: a route among JSON:API ones that answers another media type (the JSON Schema), so Accept is not its business. */
    jsonApi?: boolean;
  }
}

type PreParsingDone = (error?: Error | null, payload?: RequestPayload) => void;

/** Cheap test every request with the header pays; the parsing below runs only when it passes. */
const MENTIONS_JSON_API = /vnd\.api\+json/i;

interface MediaRange {
  type: string;
  /** Media type parameters; in Accept, those before the weight (`q`), which is not one. */
  hasParameters: boolean;
}

function mediaRange(text: string, weightEndsParameters: boolean): MediaRange {
  const parts = text.split(';');
  const type = (parts[0] ?? '').trim().toLowerCase();
  for (let i = 1; i < parts.length; i++) {
    const parameter = parts[i]!.trim();
    if (parameter === '') continue;
    if (weightEndsParameters && /^q\s*=/i.test(parameter)) break;
    return { type, hasParameters: true };
  }
  return { type, hasParameters: false };
}

/** A request with no body: no Content-Length above 0 and no chunked body. */
function isBodiless(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] === undefined && (length === undefined || length.trim() === '0');
}

/**
 * Global: a request body labelled as JSON:API with parameters is 415. A request without a body (a GET or
 * DELETE some clients label anyway) sends no document, so its Content-Type describes nothing: ignored.
 */
export function refuseJsonApiContentTypeParameters(
  request: FastifyRequest,
  _reply: FastifyReply,
  payload: RequestPayload,
  done: PreParsingDone,
): void {
  const contentType = request.headers['content-type'];
  if (contentType === undefined || !contentType.includes(';') || !MENTIONS_JSON_API.test(contentType))
    return done(null, payload);
  if (isBodiless(request)) return done(null, payload);
  const range = mediaRange(contentType, false);
  if (range.type === JSON_API_MEDIA_TYPE && range.hasParameters) {
    return done(
      new ApiError(
        'UNSUPPORTED_MEDIA_TYPE',
        `Send ${JSON_API_MEDIA_TYPE} without media type parameters, or application/json`,
      ),
    );
  }
  done(null, payload);
}

/** On routes that answer JSON:API documents: an Accept whose every JSON:API instance is modified is 406. */
export function refuseModifiedJsonApiAccept(
  request: FastifyRequest,
  _reply: FastifyReply,
  payload: RequestPayload,
  done: PreParsingDone,
): void {
  const accept = request.headers.accept;
  if (accept === undefined || !MENTIONS_JSON_API.test(accept) || request.routeOptions.config.jsonApi === false)
    return done(null, payload);
  let instances = 0;
  let modified = 0;
  for (const entry of accept.split(',')) {
    const range = mediaRange(entry, true);
    if (range.type !== JSON_API_MEDIA_TYPE) continue;
    instances++;
    if (range.hasParameters) modified++;
  }
  if (instances > 0 && modified === instances) {
    return done(
      new ApiError(
        'NOT_ACCEPTABLE',
        `Answers are ${JSON_API_MEDIA_TYPE} without media type parameters; accept it without them`,
      ),
    );
  }
  done(null, payload);
}
