// JSON:API media type and the document helpers every route uses.
import type { FastifyReply } from 'fastify';

export const JSON_API_MEDIA_TYPE = 'application/vnd.api+json';

export function sendJsonApi(reply: FastifyReply, status: number, document: unknown): FastifyReply {
  return reply.code(status).type(JSON_API_MEDIA_TYPE).send(document);
}
