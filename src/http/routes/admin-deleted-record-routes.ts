// GET /admin/resources/:name/deleted (docs/admin-api.md): a soft-delete resource's deleted records, which
// no /v1 route shows, for an operator to see what was removed and when. Paged like the other admin lists.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { parseAdminPage } from '../../auth/admin/parse-admin-page.ts';
import { ApiError } from '../../errors/api-error.ts';
import { listDeletedRecords } from '../../records/deleted-records.ts';
import { RESOURCES_PATH } from '../../resources/definition-document.ts';
import { jsonApiAnswer } from '../documents/json-api.ts';
import { refuseModifiedJsonApiAccept } from '../documents/json-api-negotiation.ts';
import { requireAdmin } from '../guards/require-admin.ts';

const PAGE_PARAMETERS = new Set(['_limit', '_offset', 'page[limit]', 'page[offset]']);

export async function registerAdminDeletedRecordRoutes(app: FastifyInstance, ctx: Pick<AppContext, 'auth' | 'registry' | 'store'>): Promise<void> {
  await app.register(async (scope) => {
    scope.addHook('onRequest', requireAdmin(ctx));
    scope.addHook('preParsing', refuseModifiedJsonApiAccept);

    scope.get<{ Params: { name: string } }>(`${RESOURCES_PATH}/:name/deleted`, async (request, reply) => {
      const query = (request.query ?? {}) as Record<string, unknown>;
      const unknown = Object.keys(query).find((name) => !PAGE_PARAMETERS.has(name));
      if (unknown !== undefined) throw new ApiError('INVALID_QUERY_PARAMS', { detail: `Unknown query parameter '${unknown}'`, parameter: unknown });
      const page = parseAdminPage(query);
      const resource = ctx.registry.find(request.params.name);
      if (!resource) throw new ApiError('RESOURCE_NOT_FOUND', `Resource '${request.params.name}' does not exist`);
      if (!resource.softDelete) throw new ApiError('RESOURCE_NOT_FOUND', `Resource '${resource.name}' does not use soft delete: its deletes keep nothing`);
      const { records, total } = await listDeletedRecords(ctx.store, resource, page);
      const self = `${RESOURCES_PATH}/${encodeURIComponent(resource.name)}/deleted`;
      const data = records.map(({ id, ...attributes }) => ({ type: resource.name, id: String(id), attributes }));
      return jsonApiAnswer(reply, 200, { data, meta: { total }, links: { self: `${self}?page[offset]=${page.offset}&page[limit]=${page.limit}` } });
    });
  });
}
