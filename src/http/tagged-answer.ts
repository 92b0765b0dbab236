// Answers that carry their document's ETag, and the 304 a GET gets when its If-None-Match names it
// (RFC 9110 section 13.1.2: weak comparison; `*` matches any current record or page).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { jsonApiAnswer } from './json-api.ts';
import { matchesWeakly, parseEntityTags } from './entity-tag.ts';
import type { TaggedBody } from './record-view.ts';

export function taggedAnswer(request: FastifyRequest, reply: FastifyReply, status: number, { body, tag }: TaggedBody): string | FastifyReply {
  reply.header('ETag', tag);
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined && (request.method === 'GET' || request.method === 'HEAD') && matchesWeakly(parseEntityTags(ifNoneMatch), tag)) {
    // No body and no Content-Type: the client's copy is current.
    return reply.code(304).send();
  }
  return jsonApiAnswer(reply, status, body);
}
