// Guards `/admin/…` routes: only the admin token passes (401 UNAUTHORIZED without a credential,
// 401 INVALID_API_KEY for an unknown one, 403 FORBIDDEN for a valid API key).
// Use as a hook on the routes' plugin: `scope.addHook('onRequest', requireAdmin(ctx))`, or per route
// as `{ onRequest: requireAdmin(ctx) }`. onRequest runs before the body is parsed, so an
// unauthenticated caller cannot make the server read a large body.
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.ts';

export function requireAdmin(ctx: Pick<AppContext, 'auth'>): (request: FastifyRequest) => Promise<void> {
  return async (request) => {
    const authorization = request.headers.authorization;
    await ctx.auth.authenticateAdmin({ ...(authorization !== undefined ? { authorization } : {}) });
  };
}
