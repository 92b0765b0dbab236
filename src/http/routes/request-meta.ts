// The caller and tracing context of a request, as the record service records them on events.
import type { FastifyRequest } from 'fastify';
import type { RequestMeta } from '../../records/record-service.ts';
import { principalOf } from '../guards/authenticate-hook.ts';

const TRACEPARENT = /^[\da-f]{2}-([\da-f]{32})-[\da-f]{16}-[\da-f]{2}$/;

export function requestMeta(request: FastifyRequest): RequestMeta {
  const traceparent = request.headers.traceparent;
  const traceId = typeof traceparent === 'string' ? TRACEPARENT.exec(traceparent.trim())?.[1] : undefined;
  return { principal: principalOf(request), requestId: request.id, ...(traceId ? { traceId } : {}) };
}
