// Route options for a route that always refuses (405, a missing resource name): the refusal is made in
// onRequest, after authentication, so the body of a request bound to fail is never read.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { ApiError } from '../../errors/api-error.ts';

export function refusingRoute(refusal: (request: FastifyRequest) => ApiError) {
  return {
    // It reads no body (http/bodies/declared-bodies.ts).
    config: { requestBody: 'none' as const },
    onRequest: (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void =>
      done(refusal(request)),
    // Never reached: onRequest always ends the request.
    handler: async (request: FastifyRequest): Promise<never> => {
      throw refusal(request);
    },
  };
}
