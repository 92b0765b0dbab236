// JSON:API media type and the document helpers every route uses.
import type { FastifyReply } from 'fastify';
import { JSON_API_MEDIA_TYPE } from '../../tools/media-types.ts';

export { JSON_API_MEDIA_TYPE };

/**
 * Sets a JSON:API answer's status and type and gives back its document, for the handler to return:
 * Fastify then sends it at once. Returning the reply instead (`reply.send(…)`) makes Fastify's
 * promise adopt it as a thenable, which waits for the response to finish with a stream listener per
 * request (~2% of a get-one's CPU).
 */
export function jsonApiAnswer<T>(reply: FastifyReply, status: number, document: T): T {
  asJsonApi(reply).code(status);
  return document;
}

/**
 * Labels the reply as JSON:API, exactly: the type allows no media type parameters, and Fastify appends
 * `; charset=utf-8` to every JSON-like type it serializes itself, but not when the reply has its own serializer.
 */
export function asJsonApi(reply: FastifyReply): FastifyReply {
  return reply.type(JSON_API_MEDIA_TYPE).serializer(serializeDocument);
}

/** Some answers (lists) arrive already serialized; Fastify hands strings to a reply's serializer too. */
function serializeDocument(payload: unknown): string {
  return typeof payload === 'string' ? payload : JSON.stringify(payload);
}
