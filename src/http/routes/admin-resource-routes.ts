// Admin API for resource definitions (docs/admin-api.md): GET /admin/resources and GET /admin/resources/:name,
// the definitions every node serves, disabled ones included, with when and from which file they were applied.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { ApiError } from '../../errors/api-error.ts';
import { appliedAttributes, definitionObject, RESOURCES_PATH } from '../documents/definition-document.ts';
import { jsonApiAnswer } from '../documents/json-api.ts';
import { requireAdmin } from '../guards/require-admin.ts';
import { refuseModifiedJsonApiAccept } from '../documents/json-api-negotiation.ts';

type NameParams = { name: string };

/** Neither endpoint takes query parameters: a typo is refused rather than ignored. */
function refuseQuery(request: FastifyRequest): void {
  const [name] = Object.keys((request.query ?? {}) as Record<string, unknown>);
  if (name !== undefined)
    throw new ApiError('INVALID_QUERY_PARAMS', { detail: `Unknown query parameter '${name}'`, parameter: name });
}

export async function registerAdminResourceRoutes(
  app: FastifyInstance,
  ctx: Pick<AppContext, 'auth' | 'registry' | 'definitions'>,
): Promise<void> {
  await app.register(async (scope) => {
    scope.addHook('onRequest', requireAdmin(ctx));
    scope.addHook('preParsing', refuseModifiedJsonApiAccept);

    scope.get(RESOURCES_PATH, async (request, reply) => {
      refuseQuery(request);
      // Read together, before any await: a reload in between cannot pair resources with another record.
      const resources = ctx.registry.all();
      const applying = ctx.definitions.applied();
      const applied = await applying;
      const data = resources.map((resource) => definitionObject(resource, applied));
      return jsonApiAnswer(reply, 200, {
        data,
        meta: { total: data.length, ...appliedAttributes(applied) },
        links: { self: RESOURCES_PATH },
      });
    });

    scope.get<{ Params: NameParams }>(`${RESOURCES_PATH}/:name`, async (request, reply) => {
      refuseQuery(request);
      const resource = ctx.registry.find(request.params.name);
      if (!resource) throw new ApiError('RESOURCE_NOT_FOUND', `Resource '${request.params.name}' does not exist`);
      const applying = ctx.definitions.applied();
      const data = definitionObject(resource, await applying);
      return jsonApiAnswer(reply, 200, { data, links: { self: data.links.self } });
    });
  });
}
