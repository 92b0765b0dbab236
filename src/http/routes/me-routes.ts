// GET /me: who the caller is, for any API key or external JWT (not under /v1, where `me` could be a resource's name):
// the user, the role in force for this request, the roles it may switch to, the key's permissions
// and limits with what is left of them, and what the request may do per resource (`access`). The admin token is answered as the administrator it is.
// DELETE /me/key: the key that makes the request revokes itself (signing out of a client such as the
// console), without the admin token; the user's other keys are untouched.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { decodeAllowedRoles } from '../../auth/identity/user-roles.ts';
import type { JwtPrincipal, KeyPrincipal } from '../../model/principal.ts';
import { windowLimitFor } from '../../auth/rate-limit/key-rate-limit.ts';
import { consoleKeyIdleUntil } from '../../auth/keys/console-key.ts';
import { accessSummary } from '../../permissions/access-summary.ts';
import { ApiError } from '../../errors/api-error.ts';
import { authenticateHook, principalOf } from '../guards/authenticate-hook.ts';
import { jsonApiAnswer } from '../documents/json-api.ts';
import { refuseModifiedJsonApiAccept } from '../documents/json-api-negotiation.ts';

/** The current window as the authentication hook just counted it, from the headers it set. */
function windowState(reply: FastifyReply): { limit: number; remaining: number; resetSeconds: number } | null {
  const limit = reply.getHeader('RateLimit-Limit');
  if (limit === undefined) return null;
  return {
    limit: Number(limit),
    remaining: Number(reply.getHeader('RateLimit-Remaining')),
    resetSeconds: Number(reply.getHeader('RateLimit-Reset')),
  };
}

export async function registerMeRoutes(
  app: FastifyInstance,
  ctx: Pick<AppContext, 'config' | 'registry' | 'auth'>,
): Promise<void> {
  await app.register(async (scope) => {
    scope.addHook('onRequest', authenticateHook(ctx));
    scope.addHook('preParsing', refuseModifiedJsonApiAccept);
    scope.get('/me', async (request, reply) => {
      const principal = principalOf(request);
      if (principal.kind === 'admin') {
        return jsonApiAnswer(reply, 200, { data: { type: 'me', id: 'admin', attributes: { kind: 'admin' } } });
      }
      if (principal.kind === 'jwt') return jsonApiAnswer(reply, 200, { data: tokenHolder(ctx, principal) });
      return jsonApiAnswer(reply, 200, { data: await keyHolder(ctx, principal, reply) });
    });
    scope.delete('/me/key', async (request, reply) => {
      const principal = principalOf(request);
      if (principal.kind === 'admin') {
        throw new ApiError(
          'ADMIN_TOKEN_NOT_ALLOWED',
          'The admin token is not an API key: it is rotated with `svc admin-token --rotate`, not revoked here',
        );
      }
      if (principal.kind === 'jwt') {
        throw new ApiError(
          'FORBIDDEN',
          "A JWT is not an API key: it ends at its expiry or with the identity provider's session",
        );
      }
      // Deleting drops the key from every node's cache and ends its open streams, as the admin API's delete does.
      // Already gone (a concurrent revoke): the outcome the caller asked for.
      await ctx.auth.keys.delete(principal.keyId);
      return reply.code(204).send();
    });
  });
}

/** A JWT's caller: who the token says it is and what it may do; there is no key and no stored user. */
function tokenHolder(ctx: Pick<AppContext, 'registry'>, principal: JwtPrincipal) {
  return {
    type: 'me',
    id: principal.userId,
    attributes: {
      kind: 'jwt',
      userId: principal.userId,
      role: principal.role,
      expiresAt: principal.expiresAt,
      access: accessSummary(ctx.registry.enabled(), principal),
    },
  };
}

async function keyHolder(
  ctx: Pick<AppContext, 'config' | 'registry' | 'auth'>,
  principal: KeyPrincipal,
  reply: FastifyReply,
) {
  const [user, key] = await Promise.all([ctx.auth.users.get(principal.userId), ctx.auth.keys.get(principal.keyId)]);
  // Authenticated a moment ago: gone since, it is as unknown as any other key.
  if (!user || !key)
    throw new ApiError('INVALID_API_KEY', 'The API key is not valid', {
      headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
    });
  const window = windowLimitFor(key, ctx.config.apiKeys.rateLimit);
  return {
    type: 'me',
    id: user.id,
    attributes: {
      kind: 'key',
      userId: user.id,
      email: user.email,
      name: user.name,
      emailVerified: user.emailVerified,
      role: principal.role,
      primaryRole: user.primaryRole,
      allowedRoles: decodeAllowedRoles(user.allowedRoles),
      access: accessSummary(ctx.registry.enabled(), principal),
      key: {
        id: key.id,
        name: key.name,
        start: key.start,
        permissions: key.permissions,
        expiresAt: key.expiresAt,
        rateLimit: window ? { max: window.max, timeWindow: window.windowMs, ...(windowState(reply) ?? {}) } : null,
        remaining: key.remaining,
        requestCount: key.requestCount,
        // The console's key ends when unused (console-key.ts): when, unless a request comes before.
        console: key.console,
        idleExpiresAt: key.console ? new Date(consoleKeyIdleUntil(key)).toISOString() : null,
      },
    },
  };
}
