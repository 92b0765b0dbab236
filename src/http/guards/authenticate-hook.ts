// Resolves the caller of every protected request and sends the key's RateLimit-* headers.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import type { AuthenticatedRequest } from '../../auth/auth-component.ts';
import type { Principal } from '../../auth/principal.ts';
import { ApiError } from '../../errors/api-error.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function authenticateHook(ctx: Pick<AppContext, 'auth'>, options: { allowQueryToken?: boolean } = {}) {
  // A callback hook: with a cached key authentication is synchronous, and an async hook would cost
  // promise hops on every request for nothing.
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    let outcome: AuthenticatedRequest | Promise<AuthenticatedRequest>;
    try {
      const queryToken = options.allowQueryToken ? (request.query as Record<string, unknown> | undefined)?.token : undefined;
      outcome = ctx.auth.authenticateNow({
        authorization: header(request, 'authorization'),
        role: header(request, 'x-service-role'),
        queryToken: typeof queryToken === 'string' ? queryToken : undefined,
      });
    } catch (error) {
      done(error as Error);
      return;
    }
    if (outcome instanceof Promise) {
      outcome.then((result) => admit(request, reply, result, done), done);
    } else {
      admit(request, reply, outcome, done);
    }
  };
}

function admit(request: FastifyRequest, reply: FastifyReply, result: AuthenticatedRequest, done: HookHandlerDoneFunction): void {
  request.principal = result.principal;
  const { rateLimit } = result;
  if (rateLimit) {
    reply.header('RateLimit-Limit', String(rateLimit.limit));
    reply.header('RateLimit-Remaining', String(rateLimit.remaining));
    reply.header('RateLimit-Reset', String(rateLimit.resetSeconds));
  }
  done();
}

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new ApiError('UNAUTHORIZED', 'Authentication is required', { headers: { 'WWW-Authenticate': 'Bearer' } });
  return request.principal;
}
