// The generated API under /v1: CRUD, list queries and the per-resource JSON Schema.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { ApiError } from '../../errors/api-error.ts';
import { resolveAccess } from '../../permissions/resolve-access.ts';
import { resourceJsonSchema } from '../../resources/resource-json-schema.ts';
import type { RawQuery } from '../../query/parse-list-query.ts';
import { authenticateHook, principalOf } from '../guards/authenticate-hook.ts';
import { requestMeta } from './request-meta.ts';
import { jsonApiAnswer } from '../documents/json-api.ts';
import { listBody } from '../documents/list-body.ts';
import { recordDocument } from '../documents/resource-document.ts';
import { ifMatchOf, recordView, type TaggedBody } from '../documents/record-view.ts';
import { matchesWeakly, parseEntityTags } from '../documents/entity-tag.ts';
import { authorizeAction } from '../guards/authorize-action.ts';
import { refusingRoute } from '../guards/refusing-route.ts';
import { refuseModifiedJsonApiAccept } from '../documents/json-api-negotiation.ts';
import { writeWithBody } from '../documents/request-document.ts';
import { idempotencyKeyOf } from '../../idempotency/idempotency-key-header.ts';
import { createIdempotently } from '../idempotency/idempotent-create.ts';
import { relatedListScope } from './related-list.ts';
import { ReadQueries } from './read-queries.ts';
import { exportFormatOf } from '../export/export-format.ts';
import { sendExport } from '../export/export-answer.ts';
import { aggregateDocument } from '../documents/aggregate-document.ts';
import { likePatternLimits } from '../../query/like-pattern-limits.ts';
import { includeBounds } from '../../query/parse-compound-query.ts';
import { upsertFieldOf } from './upsert-parameter.ts';
import { filterLimits } from '../../query/filter-limits.ts';

type ResourceParams = { resource: string };
type RecordParams = { resource: string; id: string };
type RelatedParams = { resource: string; id: string; related: string };

// Answers that carry their document's ETag, and the 304 a GET gets when its If-None-Match names it
// (RFC 9110 section 13.1.2: weak comparison; `*` matches any current record or page).
function taggedAnswer(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  { body, tag }: TaggedBody,
): string | FastifyReply {
  reply.header('ETag', tag);
  const ifNoneMatch = request.headers['if-none-match'];
  if (
    ifNoneMatch !== undefined &&
    (request.method === 'GET' || request.method === 'HEAD') &&
    matchesWeakly(parseEntityTags(ifNoneMatch), tag)
  ) {
    // No body and no Content-Type: the client's copy is current.
    return reply.code(304).send();
  }
  return jsonApiAnswer(reply, status, body);
}

function methodNotAllowed(allowed: string) {
  return refusingRoute(
    (request) =>
      new ApiError('METHOD_NOT_ALLOWED', `${request.method} is not allowed here; use ${allowed}`, {
        headers: { Allow: allowed },
      }),
  );
}

export async function registerResourceRoutes(
  app: FastifyInstance,
  ctx: Pick<AppContext, 'auth' | 'config' | 'registry' | 'records' | 'idempotency'>,
): Promise<void> {
  const { registry, records } = ctx;
  const reads = new ReadQueries(
    registry,
    likePatternLimits(ctx.config.server),
    includeBounds(ctx.config.server),
    filterLimits(ctx.config.server),
  );

  await app.register(
    async (v1) => {
      v1.addHook('onRequest', authenticateHook(ctx));
      v1.addHook('preParsing', refuseModifiedJsonApiAccept);
      // Route hooks run after the plugin's: the caller is known when they decide.
      const mayRead = { onRequest: authorizeAction(ctx, 'read') };
      // A record body is checked by the record service against the fields this caller may write.
      const mayCreate = { onRequest: authorizeAction(ctx, 'create'), config: { requestBody: 'records' as const } };
      const mayUpdate = { onRequest: authorizeAction(ctx, 'update'), config: { requestBody: 'records' as const } };
      const mayDelete = { onRequest: authorizeAction(ctx, 'delete') };

      v1.all(
        '/',
        refusingRoute(() => new ApiError('NO_RESOURCE_NAME', 'The URL must name a resource: /v1/:resourceName')),
      );

      v1.get<{ Params: ResourceParams; Querystring: RawQuery }>('/:resource', mayRead, async (request, reply) => {
        const resource = registry.require(request.params.resource);
        const meta = requestMeta(request);
        const format = exportFormatOf(request.query._format, request.headers.accept);
        if (format !== undefined) {
          const query = reads.exportQuery(resource, meta.principal, request.query);
          return sendExport(reply, resource, format, await records.export(resource, meta, query));
        }
        const result = await records.list(resource, meta, reads.list(resource, meta.principal, request.query));
        return taggedAnswer(request, reply, 200, listBody(resource, result));
      });

      v1.post<{ Params: ResourceParams }>('/:resource', mayCreate, async (request, reply) => {
        const resource = registry.require(request.params.resource);
        const idempotencyKey = idempotencyKeyOf(request.headers);
        const upsert = upsertFieldOf(resource, request.query as RawQuery);
        return writeWithBody(request, { resource, urlId: undefined }, async (body, clientId) => {
          if (idempotencyKey !== undefined)
            return createIdempotently(ctx, request, reply, resource, idempotencyKey, body, clientId, upsert);
          if (upsert !== undefined) {
            const result = await records.upsert(resource, requestMeta(request), body, upsert, clientId);
            if (result.created) reply.header('Location', `/v1/${resource.name}/${String(result.record.id)}`);
            return jsonApiAnswer(
              reply,
              result.created ? 201 : 200,
              recordDocument(resource, result.record, result.attributes),
            );
          }
          const result = await records.create(resource, requestMeta(request), body, clientId);
          reply.header('Location', `/v1/${resource.name}/${String(result.record.id)}`);
          return jsonApiAnswer(reply, 201, recordDocument(resource, result.record, result.attributes));
        });
      });

      v1.get<{ Params: ResourceParams }>(
        '/:resource/schema',
        { config: { jsonApi: false } },
        async (request, reply) => {
          const resource = registry.require(request.params.resource);
          const grant = resolveAccess(resource, principalOf(request), 'read');
          try {
            return reply.code(200).type('application/schema+json').send(resourceJsonSchema(resource, grant.fields));
          } catch (error) {
            throw new ApiError('RESOURCE_SCHEMA_ERROR', 'The schema could not be built', { cause: error });
          }
        },
      );

      v1.get<{ Params: ResourceParams; Querystring: RawQuery }>(
        '/:resource/aggregate',
        mayRead,
        async (request, reply) => {
          const resource = registry.require(request.params.resource);
          const meta = requestMeta(request);
          const groups = await records.aggregate(
            resource,
            meta,
            reads.aggregate(resource, meta.principal, request.query),
          );
          return jsonApiAnswer(reply, 200, aggregateDocument(resource, groups, request.url));
        },
      );

      v1.get<{ Params: RecordParams; Querystring: RawQuery }>('/:resource/:id', mayRead, async (request, reply) => {
        const resource = registry.require(request.params.resource);
        const meta = requestMeta(request);
        const result = await records.get(
          resource,
          meta,
          request.params.id,
          reads.one(resource, meta.principal, request.query),
        );
        return taggedAnswer(
          request,
          reply,
          200,
          recordView(resource, result.record, result.attributes, result.included),
        );
      });

      v1.get<{ Params: RelatedParams; Querystring: RawQuery }>(
        '/:resource/:id/:related',
        mayRead,
        async (request, reply) => {
          const target = registry.require(request.params.resource);
          const child = registry.require(request.params.related);
          const meta = requestMeta(request);
          const { scope, query } = relatedListScope(target, request.params.id, child, request.query, meta.principal);
          // A target the caller cannot read answers as a missing one.
          await records.get(target, meta, request.params.id);
          const result = await records.list(child, meta, reads.list(child, meta.principal, query), scope);
          return taggedAnswer(request, reply, 200, listBody(child, result));
        },
      );

      v1.put<{ Params: RecordParams }>('/:resource/:id', mayUpdate, async (request, reply) => {
        const resource = registry.require(request.params.resource);
        const result = await writeWithBody(request, { resource, urlId: request.params.id }, (body) =>
          records.replace(resource, requestMeta(request), request.params.id, body, ifMatchOf(request, resource)),
        );
        return taggedAnswer(request, reply, 200, recordView(resource, result.record, result.attributes));
      });

      v1.patch<{ Params: RecordParams }>('/:resource/:id', mayUpdate, async (request, reply) => {
        const resource = registry.require(request.params.resource);
        const result = await writeWithBody(request, { resource, urlId: request.params.id }, (body) =>
          records.patch(resource, requestMeta(request), request.params.id, body, ifMatchOf(request, resource)),
        );
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
      v1.route({ method: ['POST', 'PUT', 'PATCH', 'DELETE'], url: '/:resource/aggregate', ...methodNotAllowed('GET') });
      v1.route({
        method: ['POST', 'PUT', 'PATCH', 'DELETE'],
        url: '/:resource/:id/:related',
        ...methodNotAllowed('GET'),
      });
    },
    { prefix: '/v1' },
  );
}
