// POST /token (spec 4, docs/authentication.md): email and password in, a new API key out, shown this once.
import type { FastifyInstance } from 'fastify';
import type { AuthDep, ConfigDep, RegistryDep } from '../route-deps.ts';
import { parseTokenRequest } from '../../auth/keys/token-request.ts';

export async function registerTokenRoutes(app: FastifyInstance, ctx: ConfigDep & AuthDep & RegistryDep): Promise<void> {
  app.post('/token', async (request, reply) => {
    const tokenRequest = parseTokenRequest(request.body, ctx.config, ctx.registry);
    const issued = await ctx.auth.issueKey(tokenRequest, request.ip);
    // The body holds a secret: no cache anywhere may keep it.
    reply.header('Cache-Control', 'no-store');
    return reply.code(201).type('application/json; charset=utf-8').send(issued);
  });
}
