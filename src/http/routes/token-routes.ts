// POST /token (spec 4, docs/authentication.md): email and password (or a signed-in session) in, a new API
// key out, shown this once.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { tokenRequestOf, tokenRequestProblems } from '../../auth/keys/token-request.ts';
import { IDEMPOTENCY_KEY_HEADER, idempotencyKeyOf } from '../../idempotency/idempotency-key-header.ts';
import { ApiError } from '../../errors/api-error.ts';
import { issueIdempotently, TOKEN_CONTENT_TYPE } from '../idempotency/idempotent-token.ts';
import { tokenRequestBody } from '../bodies/token-body.ts';

export async function registerTokenRoutes(
  app: FastifyInstance,
  ctx: Pick<AppContext, 'config' | 'auth' | 'registry' | 'idempotency'>,
): Promise<void> {
  const body = tokenRequestBody(ctx.config);
  app.post('/token', { config: { requestBody: body } }, async (request, reply) => {
    const idempotencyKey = idempotencyKeyOf(request.headers);
    const checked = body.read(request.body, (accepted) => tokenRequestProblems(accepted, ctx.config, ctx.registry));
    const tokenRequest = tokenRequestOf(checked, ctx.registry);
    const withSession = tokenRequest.email === null;
    if (idempotencyKey !== undefined) {
      // A replay's answer is sealed with the password it was asked with; a session has none to seal it with.
      if (withSession)
        throw new ApiError('INVALID_IDEMPOTENCY_KEY', {
          detail: 'Idempotency-Key is supported with email and password only, not with a session',
          parameter: IDEMPOTENCY_KEY_HEADER,
        });
      return issueIdempotently(ctx, request, reply, tokenRequest, idempotencyKey);
    }
    const issued = withSession
      ? await ctx.auth.issueKeyForSession(tokenRequest, {
          authorization: request.headers.authorization,
          cookie: request.headers.cookie,
          origin: request.headers.origin,
        })
      : await ctx.auth.issueKey(tokenRequest, request.ip);
    // The body holds a secret: no cache anywhere may keep it.
    reply.header('Cache-Control', 'no-store');
    return reply.code(201).type(TOKEN_CONTENT_TYPE).send(issued);
  });
}
