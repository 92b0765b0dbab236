// GET /admin/resources/:name/deleted (docs/admin-api.md): a soft-delete resource's deleted records, which
// no /v1 route shows, for an operator to see what was removed and when. Paged like the other admin lists.
// POST /admin/resources/:name/deleted/:id/restore brings one back, as an `updated` event.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { parseAdminPage } from './parse-admin-page.ts';
import { ApiError } from '../../errors/api-error.ts';
import { listDeletedRecords } from '../../records/deleted-records.ts';
import { RESOURCES_PATH } from '../documents/definition-document.ts';
import { jsonApiAnswer } from '../documents/json-api.ts';
import { refuseModifiedJsonApiAccept } from '../documents/json-api-negotiation.ts';
import { requireAdmin } from '../guards/require-admin.ts';
import type { AdminPrincipal } from '../../model/principal.ts';
import type { Resource } from '../../resources/resource.ts';
import type { ResourceRegistry } from '../../resources/resource-registry.ts';

/** Who a restore's event names: the administrator (requireAdmin let only the admin token through). */
const ADMIN: AdminPrincipal = Object.freeze({ kind: 'admin' });

/** The resource whose deleted records are asked for: 404 when unknown or without soft delete. */
function softDeleteResource(registry: ResourceRegistry, name: string): Resource {
  const resource = registry.find(name);
  if (!resource) throw new ApiError('RESOURCE_NOT_FOUND', `Resource '${name}' does not exist`);
  if (!resource.softDelete)
    throw new ApiError(
      'RESOURCE_NOT_FOUND',
      `Resource '${resource.name}' does not use soft delete: its deletes keep nothing`,
    );
  return resource;
}

const PAGE_PARAMETERS = new Set(['_limit', '_offset', 'page[limit]', 'page[offset]']);

export async function registerAdminDeletedRecordRoutes(
  app: FastifyInstance,
  ctx: Pick<AppContext, 'auth' | 'registry' | 'store' | 'records'>,
): Promise<void> {
  await app.register(async (scope) => {
    scope.addHook('onRequest', requireAdmin(ctx));
    scope.addHook('preParsing', refuseModifiedJsonApiAccept);

    scope.get<{ Params: { name: string } }>(`${RESOURCES_PATH}/:name/deleted`, async (request, reply) => {
      const query = (request.query ?? {}) as Record<string, unknown>;
      const unknown = Object.keys(query).find((name) => !PAGE_PARAMETERS.has(name));
      if (unknown !== undefined)
        throw new ApiError('INVALID_QUERY_PARAMS', {
          detail: `Unknown query parameter '${unknown}'`,
          parameter: unknown,
        });
      const page = parseAdminPage(query);
      const resource = softDeleteResource(ctx.registry, request.params.name);
      const { records, total } = await listDeletedRecords(ctx.store, resource, page);
      const self = `${RESOURCES_PATH}/${encodeURIComponent(resource.name)}/deleted`;
      const data = records.map(({ id, ...attributes }) => ({ type: resource.name, id: String(id), attributes }));
      return jsonApiAnswer(reply, 200, {
        data,
        meta: { total },
        links: { self: `${self}?page[offset]=${page.offset}&page[limit]=${page.limit}` },
      });
    });

    scope.post<{ Params: { name: string; id: string } }>(
      `${RESOURCES_PATH}/:name/deleted/:id/restore`,
      { config: { requestBody: 'none' } },
      async (request, reply) => {
        if (Object.keys((request.query ?? {}) as Record<string, unknown>).length > 0) {
          const [name] = Object.keys(request.query as Record<string, unknown>);
          throw new ApiError('INVALID_QUERY_PARAMS', { detail: `Unknown query parameter '${name}'`, parameter: name! });
        }
        const resource = softDeleteResource(ctx.registry, request.params.name);
        const { id, ...attributes } = await ctx.records.restore(
          resource,
          { principal: ADMIN, requestId: request.id },
          request.params.id,
        );
        const self = `/v1/${encodeURIComponent(resource.name)}/${encodeURIComponent(String(id))}`;
        return jsonApiAnswer(reply, 200, {
          data: { type: resource.name, id: String(id), attributes, links: { self } },
        });
      },
    );
  });
}
