// GET /v1/:resource/:id/_history (docs/records.md): a record's changes, newest first, from the outbox,
// through the caller's read permissions (records/record-history.ts). `_history` cannot be a field or
// relation name (those start with a letter), so it never hides a file field's or a relation's route.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { parseAdminPage } from './parse-admin-page.ts';
import { RETENTION_DEFAULTS } from '../../config/config-schema.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { HistoryEntry } from '../../records/record-history.ts';
import { jsonApiAnswer } from '../documents/json-api.ts';
import { refuseModifiedJsonApiAccept } from '../documents/json-api-negotiation.ts';
import { authenticateHook } from '../guards/authenticate-hook.ts';
import { authorizeAction } from '../guards/authorize-action.ts';
import { requestMeta } from './request-meta.ts';

type HistoryParams = { resource: string; id: string };

/** An event carries the whole record twice: pages stay small. */
export const HISTORY_DEFAULT_LIMIT = 20;
export const HISTORY_MAX_LIMIT = 100;
const PAGE_PARAMETERS = new Set(['_limit', '_offset', 'page[limit]', 'page[offset]']);

function historyPage(query: Record<string, unknown>): { limit: number; offset: number } {
  const unknown = Object.keys(query).find((name) => !PAGE_PARAMETERS.has(name));
  if (unknown !== undefined)
    throw new ApiError('INVALID_QUERY_PARAMS', { detail: `Unknown query parameter '${unknown}'`, parameter: unknown });
  const given = query._limit !== undefined || query['page[limit]'] !== undefined;
  const page = parseAdminPage(query);
  if (page.limit > HISTORY_MAX_LIMIT) {
    const parameter = query._limit !== undefined ? '_limit' : 'page[limit]';
    throw new ApiError('INVALID_QUERY_PARAMS', {
      detail: `${parameter} must be an integer from 1 to ${HISTORY_MAX_LIMIT}`,
      parameter,
    });
  }
  return given ? page : { ...page, limit: HISTORY_DEFAULT_LIMIT };
}

function entryObject(resource: string, recordId: string, entry: HistoryEntry) {
  const { id, ...attributes } = entry;
  return { type: 'record-changes', id, attributes: { resource, recordId, ...attributes } };
}

export async function registerRecordHistoryRoutes(
  app: FastifyInstance,
  ctx: Pick<AppContext, 'auth' | 'config' | 'registry' | 'records'>,
): Promise<void> {
  await app.register(
    async (v1) => {
      v1.addHook('onRequest', authenticateHook(ctx));
      v1.addHook('preParsing', refuseModifiedJsonApiAccept);
      v1.get<{ Params: HistoryParams }>(
        '/:resource/:id/_history',
        { onRequest: authorizeAction(ctx, 'read') },
        async (request, reply) => {
          const resource = ctx.registry.require(request.params.resource);
          const page = historyPage((request.query ?? {}) as Record<string, unknown>);
          const { id } = request.params;
          const maxAgeMs = (ctx.config.retention ?? RETENTION_DEFAULTS).events.maxAgeMs;
          const { entries, total } = await ctx.records.history(resource, requestMeta(request), id, {
            ...page,
            maxAgeMs,
          });
          const base = `/v1/${encodeURIComponent(resource.name)}/${encodeURIComponent(id)}/_history`;
          const link = (offset: number) => `${base}?page[offset]=${offset}&page[limit]=${page.limit}`;
          const links: Record<string, string> = { self: link(page.offset), first: link(0) };
          if (page.offset > 0) links.prev = link(Math.max(page.offset - page.limit, 0));
          if (page.offset + page.limit < total) links.next = link(page.offset + page.limit);
          return jsonApiAnswer(reply, 200, {
            data: entries.map((entry) => entryObject(resource.name, id, entry)),
            meta: { total, retainedSince: new Date(Date.now() - maxAgeMs).toISOString() },
            links,
          });
        },
      );
    },
    { prefix: '/v1' },
  );
}
