// Admin API for API keys (docs/admin-api.md): GET /admin/keys (?userId=, ?includeConsole=, _limit, _offset), GET/PATCH/DELETE
// /admin/keys/:id. The secret and its hash never appear here: keys are shown by prefix and start.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { optionalQueryString, parseAdminPage } from './parse-admin-page.ts';
import type { ApiKeyRecord } from '../../auth/keys/api-key-record.ts';
import { keyChangesOf, keyChangesProblems } from '../../auth/keys/parse-key-changes.ts';
import { ApiError } from '../../errors/api-error.ts';
import { jsonApiAnswer } from '../documents/json-api.ts';
import { requireAdmin } from '../guards/require-admin.ts';
import { adminKeyUpdateBody } from '../bodies/admin-key-body.ts';
import { refuseModifiedJsonApiAccept } from '../documents/json-api-negotiation.ts';

interface IdParams {
  id: string;
}

type KeyAttributes = Omit<ApiKeyRecord, 'id' | 'lastRefillAt'>;

function keyResource(key: ApiKeyRecord): {
  type: 'api-keys';
  id: string;
  attributes: KeyAttributes;
  links: { self: string };
} {
  // lastRefillAt is bookkeeping for the refill schedule, not part of spec 2.1.
  const { id, lastRefillAt: _lastRefillAt, ...attributes } = key;
  return { type: 'api-keys', id, attributes, links: { self: `/admin/keys/${encodeURIComponent(id)}` } };
}

function notFound(id: string): ApiError {
  return new ApiError('RESOURCE_NOT_FOUND', `No API key with id '${id}'`);
}

export async function registerAdminKeyRoutes(
  app: FastifyInstance,
  ctx: Pick<AppContext, 'auth' | 'registry'>,
): Promise<void> {
  await app.register(async (scope) => {
    scope.addHook('onRequest', requireAdmin(ctx));
    scope.addHook('preParsing', refuseModifiedJsonApiAccept);

    scope.get('/admin/keys', async (request, reply) => {
      const query = request.query as Record<string, unknown>;
      const page = parseAdminPage(query);
      const userId = optionalQueryString(query, 'userId');
      const includeConsole = optionalQueryString(query, 'includeConsole');
      if (includeConsole !== undefined && includeConsole !== 'true' && includeConsole !== 'false')
        throw new ApiError('INVALID_QUERY_PARAMS', {
          detail: 'includeConsole must be true or false',
          parameter: 'includeConsole',
        });
      const { keys, total } = await ctx.auth.keys.list({
        ...page,
        ...(userId !== undefined ? { userId } : {}),
        includeConsole: includeConsole === 'true',
      });
      return jsonApiAnswer(reply, 200, { data: keys.map(keyResource), meta: { total }, links: { self: request.url } });
    });

    scope.get<{ Params: IdParams }>('/admin/keys/:id', async (request, reply) => {
      const key = await ctx.auth.keys.get(request.params.id);
      if (!key) throw notFound(request.params.id);
      return jsonApiAnswer(reply, 200, { data: keyResource(key) });
    });

    const body = adminKeyUpdateBody();
    scope.patch<{ Params: IdParams }>('/admin/keys/:id', { config: { requestBody: body } }, async (request, reply) => {
      const changes = keyChangesOf(
        body.read(request.body, (accepted) => keyChangesProblems(accepted, ctx.registry)),
        ctx.registry,
      );
      const key = await ctx.auth.keys.update(request.params.id, changes);
      if (!key) throw notFound(request.params.id);
      return jsonApiAnswer(reply, 200, { data: keyResource(key) });
    });

    scope.delete<{ Params: IdParams }>('/admin/keys/:id', async (request, reply) => {
      if (!(await ctx.auth.keys.delete(request.params.id))) throw notFound(request.params.id);
      return reply.code(204).send();
    });
  });
}
