// Sends the answer of a request made with an Idempotency-Key (docs/records.md, "Idempotent creates"): a
// first request's own, or the one kept for its key, marked `Idempotency-Replayed: true`.
import type { FastifyReply } from 'fastify';
import type { WriteOutcome } from '../../idempotency/idempotency-store.ts';
import { IDEMPOTENCY_REPLAYED_HEADER } from '../../idempotency/idempotency-key-header.ts';
import { asJsonApi, JSON_API_MEDIA_TYPE } from '../documents/json-api.ts';

/** Sends a kept (or just made) answer; the handler returns what this returns. */
export function sendAnswer(reply: FastifyReply, { response, replayed }: WriteOutcome): string {
  const { 'Content-Type': type, ...headers } = response.headers;
  for (const [name, value] of Object.entries(headers)) reply.header(name, value);
  if (replayed) reply.header(IDEMPOTENCY_REPLAYED_HEADER, 'true');
  // The JSON:API type, or it with the atomic extension's parameter (POST /v1/operations): no charset added.
  if (type?.startsWith(JSON_API_MEDIA_TYPE)) asJsonApi(reply).type(type);
  else if (type !== undefined) reply.type(type);
  reply.code(response.status);
  return response.body;
}
