// Resolves the caller of every protected request and sends the key's RateLimit-* headers.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../app-context.ts';
import type { Principal } from '../auth/principal.ts';
import { ApiError } from '../errors/api-error.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function authenticateHook(ctx: AppContext, options: { allowQueryToken?: boolean } = {}) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const queryToken = options.allowQueryToken ? (request.query as Record<string, unknown> | undefined)?.token : undefined;
    const result = await ctx.auth.authenticate({
      authorization: header(request, 'authorization'),
      role: header(request, 'x-service-role'),
      queryToken: typeof queryToken === 'string' ? queryToken : undefined,
    });
    request.principal = result.principal;
    if (result.rateLimit) {
      reply.header('RateLimit-Limit', String(result.rateLimit.limit));
      reply.header('RateLimit-Remaining', String(result.rateLimit.remaining));
      reply.header('RateLimit-Reset', String(result.rateLimit.resetSeconds));
    }
  };
}

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new ApiError('UNAUTHORIZED', 'Authentication is required', { headers: { 'WWW-Authenticate': 'Bearer' } });
  return request.principal;
}
