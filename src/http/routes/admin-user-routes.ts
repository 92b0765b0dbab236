// Admin API for users (docs/admin-api.md): POST /admin/users (with a password or an invitation), GET
// /admin/users (?email=, ?search=, _limit, _offset), GET/PATCH/DELETE /admin/users/:id, and POST
// /admin/users/:id/password-reset. PATCH changes roles, name and emailVerified; keys see a role change on their next request.
// GET /admin/roles: the roles those fields may name, so a client offers only these.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { optionalQueryString, parseAdminPage } from './parse-admin-page.ts';
import { newUserOf, newUserProblems } from '../../auth/identity/parse-new-user.ts';
import { userChangesOf, userChangesProblems } from '../../auth/identity/parse-user-changes.ts';
import { USER_SEARCH_MAX_LENGTH } from '../../auth/identity/user-search.ts';
import type { UserRecord } from '../../auth/identity/user-record.ts';
import { definedRoles } from '../../config/defined-roles.ts';
import { ApiError } from '../../errors/api-error.ts';
import { jsonApiAnswer } from '../documents/json-api.ts';
import { requireAdmin } from '../guards/require-admin.ts';
import { adminUserCreateBody, adminUserUpdateBody } from '../bodies/admin-user-body.ts';
import { refuseModifiedJsonApiAccept } from '../documents/json-api-negotiation.ts';

interface IdParams {
  id: string;
}

function userResource(user: UserRecord): {
  type: 'users';
  id: string;
  attributes: Omit<UserRecord, 'id'>;
  links: { self: string };
} {
  const { id, ...attributes } = user;
  return { type: 'users', id, attributes, links: { self: `/admin/users/${encodeURIComponent(id)}` } };
}

function notFound(id: string): ApiError {
  return new ApiError('RESOURCE_NOT_FOUND', `No user with id '${id}'`);
}

export async function registerAdminUserRoutes(
  app: FastifyInstance,
  ctx: Pick<AppContext, 'config' | 'registry' | 'auth'>,
): Promise<void> {
  await app.register(async (scope) => {
    scope.addHook('onRequest', requireAdmin(ctx));
    scope.addHook('preParsing', refuseModifiedJsonApiAccept);

    scope.get('/admin/roles', async (request, reply) => {
      const [name] = Object.keys((request.query ?? {}) as Record<string, unknown>);
      if (name !== undefined)
        throw new ApiError('INVALID_QUERY_PARAMS', { detail: `Unknown query parameter '${name}'`, parameter: name });
      // Read at each request: a reload of the definitions can add or drop roles.
      const roles = [...definedRoles(ctx.config, ctx.registry.definitions)].sort();
      const data = roles.map((role) => ({
        type: 'roles',
        id: role,
        attributes: { default: role === ctx.config.auth.defaultRole },
      }));
      return jsonApiAnswer(reply, 200, { data, meta: { total: data.length }, links: { self: '/admin/roles' } });
    });

    scope.get('/admin/users', async (request, reply) => {
      const query = request.query as Record<string, unknown>;
      const page = parseAdminPage(query);
      const email = optionalQueryString(query, 'email');
      const search = optionalQueryString(query, 'search');
      if (search !== undefined && [...search].length > USER_SEARCH_MAX_LENGTH)
        throw new ApiError('INVALID_QUERY_PARAMS', {
          detail: `search must be at most ${USER_SEARCH_MAX_LENGTH} characters long`,
          parameter: 'search',
        });
      const { users, total } = await ctx.auth.users.list({
        ...page,
        ...(email !== undefined ? { email } : {}),
        ...(search !== undefined ? { search } : {}),
      });
      return jsonApiAnswer(reply, 200, {
        data: users.map(userResource),
        meta: { total },
        links: { self: request.url },
      });
    });

    const createBody = adminUserCreateBody();
    scope.post('/admin/users', { config: { requestBody: createBody } }, async (request, reply) => {
      const { user: input, invite } = newUserOf(createBody.read(request.body, newUserProblems));
      const user = await ctx.auth.users.create(input);
      if (invite) await ctx.auth.users.sendPasswordLink(user.id, true);
      const resource = userResource(user);
      reply.header('Location', resource.links.self);
      return jsonApiAnswer(reply, 201, { data: resource, meta: { invitationSent: invite } });
    });

    // No body is read: one with members is refused rather than ignored, so a caller cannot think it set something.
    const noBody = { config: { requestBody: 'none' as const } };
    scope.post<{ Params: IdParams }>('/admin/users/:id/password-reset', noBody, async (request, reply) => {
      if (request.body !== undefined && request.body !== null && Object.keys(request.body).length > 0)
        throw new ApiError('INVALID_RESOURCE_DATA', {
          detail: 'This endpoint takes no body',
          pointer: '/data',
        });
      const user = await ctx.auth.users.sendPasswordLink(request.params.id);
      if (!user) throw notFound(request.params.id);
      return jsonApiAnswer(reply, 202, { meta: { sentTo: user.email } });
    });

    scope.get<{ Params: IdParams }>('/admin/users/:id', async (request, reply) => {
      const user = await ctx.auth.users.get(request.params.id);
      if (!user) throw notFound(request.params.id);
      return jsonApiAnswer(reply, 200, { data: userResource(user) });
    });

    const body = adminUserUpdateBody();
    scope.patch<{ Params: IdParams }>('/admin/users/:id', { config: { requestBody: body } }, async (request, reply) => {
      const changes = userChangesOf(body.read(request.body, userChangesProblems));
      const user = await ctx.auth.users.update(request.params.id, changes);
      if (!user) throw notFound(request.params.id);
      return jsonApiAnswer(reply, 200, { data: userResource(user) });
    });

    scope.delete<{ Params: IdParams }>('/admin/users/:id', async (request, reply) => {
      if (!(await ctx.auth.users.delete(request.params.id))) throw notFound(request.params.id);
      return reply.code(204).send();
    });
  });
}
