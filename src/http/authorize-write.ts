// Decides before the body is read whether the caller may write to the resource at all: the admin token
// never may (403 ADMIN_TOKEN_NOT_ALLOWED), nor a role or key without the action (403 FORBIDDEN,
// KEY_PERMISSION_DENIED), and an unknown or disabled resource is 404. A refused body is never parsed.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { AppContext } from '../app-context.ts';
import { resolveAccess } from '../permissions/resolve-access.ts';
import { principalOf } from './authenticate-hook.ts';

/** A route-level onRequest hook; it runs after the plugin's authentication hook. */
export function authorizeWrite(ctx: AppContext, action: 'create' | 'update') {
  return (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    try {
      const { resource } = request.params as { resource: string };
      // The handler asks again; decisions are cached per resource, role and action, so that costs a lookup.
      resolveAccess(ctx.registry.require(resource), principalOf(request), action);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  };
}
