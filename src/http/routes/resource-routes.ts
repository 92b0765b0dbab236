// The generated API under /v1: CRUD, list queries and the per-resource JSON Schema.
import type { FastifyInstance } from 'fastify';
import type { AuthDep, IdempotencyDep, RecordsDep, RegistryDep } from '../route-deps.ts';
import { ApiError } from '../../errors/api-error.ts';
import { resolveAccess } from '../../permissions/resolve-access.ts';
import { resourceJsonSchema } from '../../resources/resource-json-schema.ts';
import type { RawQuery } from '../../query/parse-list-query.ts';
import { authenticateHook, principalOf } from '../authenticate-hook.ts';
import { requestMeta } from '../request-meta.ts';
import { jsonApiAnswer } from '../json-api.ts';
import { listBody } from '../list-body.ts';
import { recordDocument } from '../resource-document.ts';
import { ifMatchOf, recordView } from '../record-view.ts';
import { taggedAnswer } from '../tagged-answer.ts';
import { authorizeAction } from '../authorize-action.ts';
import { refusingRoute } from '../refusing-route.ts';
import { refuseModifiedJsonApiAccept } from '../json-api-negotiation.ts';
import { writeWithBody } from '../request-document.ts';
import { idempotencyKeyOf } from '../../idempotency/idempotency-key-header.ts';
import { createIdempotently } from '../idempotent-create.ts';
import { relatedListScope } from '../related-list.ts';
import { upsertFieldOf } from '../upsert-parameter.ts';

type ResourceParams = { resource: string };
type RecordParams = { resource: string; id: string };
type RelatedParams = { resource: string; id: string; related: string };

function methodNotAllowed(allowed: string) {
  return refusingRoute(
    (request) => new ApiError('METHOD_NOT_ALLOWED', `${request.method} is not allowed here; use ${allowed}`, { headers: { Allow: allowed } }),
  );
}

export async function registerResourceRoutes(app: FastifyInstance, ctx: AuthDep & RegistryDep & RecordsDep & IdempotencyDep): Promise<void> {
  const { registry, records } = ctx;

  await app.register(
    async (v1) => {
      v1.addHook('onRequest', authenticateHook(ctx));
      v1.addHook('preParsing', refuseModifiedJsonApiAccept);
      // Route hooks run after the plugin's: the caller is known when they decide.
      const mayRead = { onRequest: authorizeAction(ctx, 'read') };
      const mayCreate = { onRequest: authorizeAction(ctx, 'create') };
      const mayUpdate = { onRequest: authorizeAction(ctx, 'update') };
      const mayDelete = { onRequest: authorizeAction(ctx, 'delete') };

      v1.all('/', refusingRoute(() => new ApiError('NO_RESOURCE_NAME', 'The URL must name a resource: /v1/:resourceName')));

      v1.get<{ Params: ResourceParams; Querystring: RawQuery }>('/:resource', mayRead, async (request, reply) => {
        const resource = registry.require(request.params.resource);
        const result = await records.list(resource, requestMeta(request), request.query);
        return taggedAnswer(request, reply, 200, listBody(resource, result));
      });

      v1.post<{ Params: ResourceParams }>('/:resource', mayCreate, async (request, reply) => {
        const resource = registry.require(request.params.resource);
        const idempotencyKey = idempotencyKeyOf(request.headers);
        const upsert = upsertFieldOf(resource, request.query as RawQuery);
        return writeWithBody(request, { resource, urlId: undefined }, async (body, clientId) => {
          if (idempotencyKey !== undefined) return createIdempotently(ctx, request, reply, resource, idempotencyKey, body, clientId, upsert);
          if (upsert !== undefined) {
            const result = await records.upsert(resource, requestMeta(request), body, upsert, clientId);
            if (result.created) reply.header('Location', `/v1/${resource.name}/${String(result.record.id)}`);
            return jsonApiAnswer(reply, result.created ? 201 : 200, recordDocument(resource, result.record, result.attributes));
          }
          const result = await records.create(resource, requestMeta(request), body, clientId);
          reply.header('Location', `/v1/${resource.name}/${String(result.record.id)}`);
          return jsonApiAnswer(reply, 201, recordDocument(resource, result.record, result.attributes));
        });
      });

      v1.get<{ Params: ResourceParams }>('/:resource/schema', { config: { jsonApi: false } }, async (request, reply) => {
        const resource = registry.require(request.params.resource);
        const grant = resolveAccess(resource, principalOf(request), 'read');
        try {
          return reply.code(200).type('application/schema+json').send(resourceJsonSchema(resource, grant.fields));
        } catch (error) {
          throw new ApiError('RESOURCE_SCHEMA_ERROR', 'The schema could not be built', { cause: error });
        }
      });

      v1.get<{ Params: RecordParams; Querystring: RawQuery }>('/:resource/:id', mayRead, async (request, reply) => {
        const resource = registry.require(request.params.resource);
        const result = await records.get(resource, requestMeta(request), request.params.id, request.query);
        return taggedAnswer(request, reply, 200, recordView(resource, result.record, result.attributes, result.included));
      });

      v1.get<{ Params: RelatedParams; Querystring: RawQuery }>('/:resource/:id/:related', mayRead, async (request, reply) => {
        const target = registry.require(request.params.resource);
        const child = registry.require(request.params.related);
        const meta = requestMeta(request);
        const { scope, query } = relatedListScope(target, request.params.id, child, request.query, meta.principal);
        // A target the caller cannot read answers as a missing one.
        await records.get(target, meta, request.params.id);
        const result = await records.list(child, meta, query, scope);
        return taggedAnswer(request, reply, 200, listBody(child, result));
      });

      v1.put<{ Params: RecordParams }>('/:resource/:id', mayUpdate, async (request, reply) => {
        const resource = registry.require(request.params.resource);
        const result = await writeWithBody(request, { resource, urlId: request.params.id }, (body) => records.replace(resource, requestMeta(request), request.params.id, body, ifMatchOf(request, resource)));
        return taggedAnswer(request, reply, 200, recordView(resource, result.record, result.attributes));
      });

      v1.patch<{ Params: RecordParams }>('/:resource/:id', mayUpdate, async (request, reply) => {
        const resource = registry.require(request.params.resource);
        const result = await writeWithBody(request, { resource, urlId: request.params.id }, (body) => records.patch(resource, requestMeta(request), request.params.id, body, ifMatchOf(request, resource)));
        return taggedAnswer(request, reply, 200, recordView(resource, result.record, result.attributes));
      });

      v1.delete<{ Params: RecordParams }>('/:resource/:id', mayDelete, async (request, reply) => {
        const resource = registry.require(request.params.resource);
        await records.remove(resource, requestMeta(request), request.params.id, ifMatchOf(request, resource));
        return reply.code(204).send();
      });

      v1.route({ method: ['PUT', 'PATCH', 'DELETE'], url: '/:resource', ...methodNotAllowed('GET, POST') });
      v1.route({ method: ['POST'], url: '/:resource/:id', ...methodNotAllowed('GET, PUT, PATCH, DELETE') });
      v1.route({ method: ['POST', 'PUT', 'PATCH', 'DELETE'], url: '/:resource/schema', ...methodNotAllowed('GET') });
      v1.route({ method: ['POST', 'PUT', 'PATCH', 'DELETE'], url: '/:resource/:id/:related', ...methodNotAllowed('GET') });
    },
    { prefix: '/v1' },
  );
}
