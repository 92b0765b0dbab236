// Decides before the body or the query is looked at whether the caller may act on the resource at all:
// the admin token never writes (403 ADMIN_TOKEN_NOT_ALLOWED), nor does a role or key act without the
// action (403 FORBIDDEN, KEY_PERMISSION_DENIED); an unknown or disabled resource is 404. A refused
// request's body is never parsed.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { resolveAccess } from '../../permissions/resolve-access.ts';
import { principalOf } from './authenticate-hook.ts';
import type { Action } from '../../config/config-types.ts';

/** A route-level onRequest hook; it runs after the plugin's authentication hook. */
export function authorizeAction(ctx: Pick<AppContext, 'registry'>, action: Action) {
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
