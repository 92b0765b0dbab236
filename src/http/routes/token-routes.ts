// POST /token (spec 4, docs/authentication.md): email and password in, a new API key out, shown this once.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { parseTokenRequest } from '../../auth/keys/token-request.ts';
import { idempotencyKeyOf } from '../../idempotency/idempotency-key-header.ts';
import { issueIdempotently, TOKEN_CONTENT_TYPE } from '../idempotency/idempotent-token.ts';

export async function registerTokenRoutes(app: FastifyInstance, ctx: Pick<AppContext, 'config' | 'auth' | 'registry' | 'idempotency'>): Promise<void> {
  app.post('/token', async (request, reply) => {
    const idempotencyKey = idempotencyKeyOf(request.headers);
    const tokenRequest = parseTokenRequest(request.body, ctx.config, ctx.registry);
    if (idempotencyKey !== undefined) return issueIdempotently(ctx, request, reply, tokenRequest, idempotencyKey);
    const issued = await ctx.auth.issueKey(tokenRequest, request.ip);
    // The body holds a secret: no cache anywhere may keep it.
    reply.header('Cache-Control', 'no-store');
    return reply.code(201).type(TOKEN_CONTENT_TYPE).send(issued);
  });
}
