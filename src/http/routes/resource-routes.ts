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
import { ifMatchOf, recordView, rightsOn, type TaggedBody } from '../documents/record-view.ts';
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
import { aggregateDocument } from '../documents/resource-document.ts';
import { likePatternLimits } from '../../query/like-pattern-limits.ts';
import { includeBounds } from '../../query/parse-compound-query.ts';
import { upsertFieldOf } from './upsert-parameter.ts';
import { filterLimits } from '../../query/filter-limits.ts';
import multipart from '@fastify/multipart';
import { writeWithFiles } from '../files/write-with-files.ts';
import {
  authenticateUnlessSignedDownload,
  authorizeReadUnlessFile,
  downloadFile,
  type FileParams,
  fileFieldOf,
  registerFileUploadRoute,
} from '../files/file-routes.ts';
import { fileUrlHook } from '../files/file-urls.ts';

// Bounds on a multipart/form-data body's shape; the size of each file is its field's maxSize, counted
// while it streams (files/receive-upload.ts), so busboy's own file limit is left open.
function multipartLimits(bodyLimitBytes: number) {
  return {
    fieldNameSize: 100,
    fieldSize: bodyLimitBytes,
    fields: 1000,
    files: 100,
    parts: 1100,
    headerPairs: 100,
    fileSize: Number.MAX_SAFE_INTEGER,
  };
}

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

function methodNotAllowedError(request: FastifyRequest, allowed: string): ApiError {
  return new ApiError('METHOD_NOT_ALLOWED', `${request.method} is not allowed here; use ${allowed}`, {
    headers: { Allow: allowed },
  });
}

function methodNotAllowed(allowed: string) {
  return refusingRoute((request) => methodNotAllowedError(request, allowed));
}

export async function registerResourceRoutes(
  app: FastifyInstance,
  ctx: Pick<AppContext, 'auth' | 'config' | 'registry' | 'records' | 'idempotency' | 'files'>,
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
      v1.addHook('onRequest', authenticateUnlessSignedDownload(ctx, authenticateHook(ctx)));
      v1.addHook('preParsing', refuseModifiedJsonApiAccept);
      v1.addHook('onSend', fileUrlHook(ctx));
      // multipart/form-data bodies are not read when parsed: the handler streams their files after the
      // caller, the action and each file's field were allowed (http/files/multipart-body.ts).
      await v1.register(multipart, { limits: multipartLimits(ctx.config.server.bodyLimitBytes) });
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
        const target = { resource, urlId: undefined, action: 'create' as const };
        if (idempotencyKey !== undefined) {
          if (request.isMultipart())
            throw new ApiError('BAD_REQUEST', {
              detail: 'An Idempotency-Key is taken with JSON bodies only; upload the files with PUT on their fields',
              parameter: 'Idempotency-Key',
            });
          return writeWithBody(request, target, (body, clientId) =>
            createIdempotently(ctx, request, reply, resource, idempotencyKey, body, clientId, upsert),
          );
        }
        if (upsert !== undefined) {
          const result = await writeWithFiles(ctx, request, target, (body, clientId) =>
            records.upsert(resource, requestMeta(request), body, upsert, clientId),
          );
          if (result.created) reply.header('Location', `/v1/${resource.name}/${String(result.record.id)}`);
          const can = rightsOn(resource, principalOf(request), result.record);
          return jsonApiAnswer(
            reply,
            result.created ? 201 : 200,
            recordDocument(resource, result.record, result.attributes, undefined, can),
          );
        }
        const result = await writeWithFiles(ctx, request, target, (body, clientId) =>
          records.create(resource, requestMeta(request), body, clientId),
        );
        reply.header('Location', `/v1/${resource.name}/${String(result.record.id)}`);
        const can = rightsOn(resource, principalOf(request), result.record);
        return jsonApiAnswer(reply, 201, recordDocument(resource, result.record, result.attributes, undefined, can));
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
          recordView(resource, result.record, result.attributes, meta.principal, result.included),
        );
      });

      v1.get<{ Params: RelatedParams; Querystring: RawQuery }>(
        '/:resource/:id/:related',
        { onRequest: authorizeReadUnlessFile(ctx) },
        async (request, reply) => {
          const fileField = fileFieldOf(ctx, request.params);
          if (fileField) return downloadFile(ctx, request, reply, fileField);
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

      v1.get<{ Params: FileParams; Querystring: RawQuery }>(
        '/:resource/:id/:related/:index',
        { onRequest: authorizeReadUnlessFile(ctx), config: { jsonApi: false } },
        async (request, reply) => {
          const fileField = fileFieldOf(ctx, request.params);
          if (!fileField) throw new ApiError('ROUTE_NOT_FOUND', `Route GET ${request.url.split('?')[0]} not found`);
          return downloadFile(ctx, request, reply, fileField);
        },
      );

      await registerFileUploadRoute(v1, ctx, (request) => methodNotAllowedError(request, 'GET'));

      v1.put<{ Params: RecordParams }>('/:resource/:id', mayUpdate, async (request, reply) => {
        const resource = registry.require(request.params.resource);
        const urlId = request.params.id;
        const result = await writeWithFiles(ctx, request, { resource, urlId, action: 'update' }, (body) =>
          records.replace(resource, requestMeta(request), request.params.id, body, ifMatchOf(request, resource)),
        );
        return taggedAnswer(
          request,
          reply,
          200,
          recordView(resource, result.record, result.attributes, principalOf(request)),
        );
      });

      v1.patch<{ Params: RecordParams }>('/:resource/:id', mayUpdate, async (request, reply) => {
        const resource = registry.require(request.params.resource);
        const urlId = request.params.id;
        const result = await writeWithFiles(ctx, request, { resource, urlId, action: 'update' }, (body) =>
          records.patch(resource, requestMeta(request), request.params.id, body, ifMatchOf(request, resource)),
        );
        return taggedAnswer(
          request,
          reply,
          200,
          recordView(resource, result.record, result.attributes, principalOf(request)),
        );
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
        method: ['POST', 'PATCH', 'DELETE'],
        url: '/:resource/:id/:related',
        ...methodNotAllowed('GET'),
      });
    },
    { prefix: '/v1' },
  );
}
